import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import type { HubEvent, Recorded } from '@hub/domain';
import { acceptsUpdate, encode, extensionOptIn, initialAcpView } from './index';
import { acpValidatorsFrom } from './testing/validators';

// A started turn waiting for a worker (TurnQueued, ADR 0033) on ACP: Harn's `progress` extension.

const SHARED = path.resolve(__dirname, '../../../../../shared/fixtures');
const readJson = (p: string): unknown => JSON.parse(fs.readFileSync(p, 'utf8'));
const v = acpValidatorsFrom(
  readJson(path.join(SHARED, 'acp-upstream/schema-v0.12.2/schema.json')) as object,
  readJson(path.join(SHARED, 'harn-acp/conformance/acp-session-update.schema.json')) as object,
  new Ajv2020({ strict: false, allErrors: true, validateFormats: false }),
  new Ajv2020({ strict: false, allErrors: true, validateFormats: false }),
);

const since = '2026-11-26T10:00:00.000Z';
const queued: Recorded<HubEvent> = {
  type: 'TurnQueued',
  data: { turnId: 't1', reason: 'capacity', since },
  eventId: 'e4',
  tenantId: 't',
  streamId: 'session-s',
  streamPosition: 4,
  globalPosition: 41,
  createdAt: since,
  metadata: { correlationId: 'c' },
};

describe('TurnQueued over ACP', () => {
  const [note, ...rest] = encode(queued, initialAcpView(), 's').notifications;

  it('is one Harn `progress` update, phase `queued`, every vendor field under _meta.harn, with the cursor', () => {
    expect(rest).toEqual([]);
    expect(note?.params).toEqual({
      sessionId: 's',
      update: {
        sessionUpdate: 'progress',
        _meta: { harn: { phase: 'queued', message: 'waiting for a worker', data: { turnId: 't1', reason: 'capacity', since } } },
      },
      _meta: { harn: { cursor: 41 } },
    });
  });

  it("passes Harn's profile of session/update", () => {
    expect(v.check(note)).toEqual([]);
  });

  it('goes only to a client that opted into Harn extensions (a strict ACP client gets nothing)', () => {
    expect(acceptsUpdate(extensionOptIn({}), 'progress')).toBe(false);
    expect(acceptsUpdate(extensionOptIn({ _meta: { harn: { sessionUpdateExtensions: ['progress'] } } }), 'progress')).toBe(true);
  });
});
