import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubStack, TransportTestClient } from '@hub/testing';

// Issue 16: retention. A tenant's retentionDays (set by an admin) makes `hub retention run`
// archive each session idle for longer (its export, with hashes, verifiable offline) and then
// erase it, with a tombstone naming the archive; newer sessions and other tenants stay.

jest.setTimeout(120_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };
let other: { tenantId: string; apiKey: string };

async function session(key: string, id: string): Promise<void> {
  const c = await TransportTestClient.connect(stack.url, key, { session: id });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'submit', prompt: 'read notes.txt' }]);
  await c.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
  await c.close();
}

/** Makes a session look idle for `days` (the clock cannot be moved for a running hub). */
const age = (tenantId: string, sessionId: string, days: number) =>
  stack.query(`UPDATE streams SET updated_at = now() - make_interval(days => $3) WHERE tenant_id = $1 AND stream_id = $2`, [
    tenantId,
    `session-${sessionId}`,
    days,
  ]);

beforeAll(async () => {
  stack = await HubStack.start({ label: 'retention', workers: 1 });
  tenant = await stack.createTenant('retained');
  other = await stack.createTenant('forever');
  await session(tenant.apiKey, 'old');
  await session(tenant.apiKey, 'recent');
  await session(other.apiKey, 'old');
  await age(tenant.tenantId, 'old', 40);
  await age(tenant.tenantId, 'recent', 10);
  await age(other.tenantId, 'old', 400);
});
afterAll(() => stack?.stop());

it("archives then erases the sessions idle longer than the tenant's retention, and only those", async () => {
  const put = await fetch(`${stack.url}/v1/admin/limits`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ retentionDays: 30 }),
  });
  expect(put.status).toBe(200);
  const events = await stack.events(tenant.tenantId, 'old');
  const dir = mkdtempSync(join(tmpdir(), 'hub-retention-'));

  const dry = await stack.cli(['retention', 'run', '--dry-run']);
  expect(dry.code).toBe(0);
  expect(dry.stdout).toContain('"sessionId":"old","events"');
  expect(await stack.events(tenant.tenantId, 'old')).toHaveLength(events.length);

  const run = await stack.cli(['retention', 'run', '--archive', dir]);
  expect(run.code).toBe(0);
  const lines = run.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const file = join(dir, tenant.tenantId, 'old.ndjson');
  expect(lines).toEqual([
    { tenantId: tenant.tenantId, sessionId: 'old', events: events.length, archivedTo: file },
    { ok: true, tenants: 1, erased: 1, events: events.length, skipped: 0 },
  ]);

  // The archive is the session, hashes included, and verifies offline.
  const archived = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { eventId: string; hash: string });
  expect(archived.map((e) => e.eventId)).toEqual(events.map((e) => e.eventId));
  expect((await stack.cli(['audit', 'verify', '--file', file])).code).toBe(0);

  expect(await stack.events(tenant.tenantId, 'old')).toEqual([]);
  expect(await stack.events(tenant.tenantId, 'recent')).not.toEqual([]);
  expect(await stack.events(other.tenantId, 'old')).not.toEqual([]); // no retention set there
  const tombstone = (await stack.streamEvents(tenant.tenantId, 'tenant-admin')).at(-1);
  expect(tombstone).toEqual(
    expect.objectContaining({
      type: 'SessionErased',
      data: {
        sessionId: 'old',
        reason: 'retention',
        archivedTo: file,
        streams: [{ streamId: 'session-old', events: events.length, lastHash: archived.at(-1)?.hash }],
      },
      metadata: expect.objectContaining({ actor: { type: 'system', id: 'retention' } }),
    }),
  );
  expect((await stack.cli(['audit', 'verify'])).code).toBe(0);

  // A run with nothing due does nothing; --older-than overrides the tenant's setting.
  const again = await stack.cli(['retention', 'run', '--archive', dir, '--tenant', tenant.tenantId]);
  expect(JSON.parse(again.stdout.trim().split('\n').at(-1) ?? '{}')).toEqual({ ok: true, tenants: 1, erased: 0, events: 0, skipped: 0 });
  const shorter = await stack.cli(['retention', 'run', '--archive', dir, '--tenant', tenant.tenantId, '--older-than', '7']);
  expect(shorter.stdout).toContain('"sessionId":"recent"');
  expect((await stack.cli(['retention', 'run'])).code).toBe(2);
});
