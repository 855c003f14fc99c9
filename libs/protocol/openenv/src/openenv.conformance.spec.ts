import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { decodeReset, decodeStep, decodeWsFrame } from './decode';
import { encodeResetResult, encodeStepResult, environmentSchema, wsError, wsObservation, wsState } from './observation';
import { StepRequest } from './schema';

// Walks every upstream fixture (meta-pytorch/OpenEnv @ 685de41, shared/fixtures/openenv): each
// request decodes as the real server would take it, and each answer this lib writes has the
// fixture's shape. A fixture nobody handles fails the walk.

// src → openenv → protocol → libs → repo → the shared folder beside the repo.
const UPSTREAM = path.resolve(__dirname, '../../../../../shared/fixtures/openenv');
const read = (rel: string): unknown => JSON.parse(readFileSync(path.join(UPSTREAM, rel), 'utf8'));

/** Upstream's `StepResponse`/`ResetResponse` (extra="forbid"). */
const UpstreamStepResponse = z
  .object({
    observation: z.record(z.string(), z.unknown()),
    reward: z.number().nullable(),
    done: z.boolean(),
    metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .strict();

const summary = { status: 'completed' as const, response: 'hi', turnEvents: [], turnNumber: 1, reward: 1, done: false, episodeId: 'e' };

const cases: Record<string, (fixture: unknown) => void> = {
  'http/reset-request.empty.json': (f) => expect(decodeReset(f)).toEqual({ ok: true, value: {} }),
  'http/reset-request.example.json': (f) => expect(decodeReset(f)).toEqual({ ok: true, value: { seed: 42, episode_id: 'episode-001' } }),
  'http/reset-response.200.example.json': (f) => {
    expect(UpstreamStepResponse.safeParse(f).success).toBe(true);
    const ours = encodeResetResult('episode-001');
    expect(UpstreamStepResponse.parse(ours)).toEqual(ours);
    expect(Object.keys(ours).sort()).toEqual(Object.keys(f as object).sort());
  },
  'http/schema-response.200.example.json': (f) => {
    const ours = environmentSchema();
    expect(Object.keys(ours).sort()).toEqual(Object.keys(f as object).sort());
    expect(ours.action).toMatchObject({ properties: { message: { type: 'string' } } });
    expect(ours.observation).toMatchObject({ properties: { response: { type: 'string' } } });
    expect(ours.state).toMatchObject({ properties: { step_count: { type: 'integer' } } });
  },
  // A non-harness action is valid OpenEnv but not a harness action: 422 on action.message.
  'http/step-request.coding_env.json': (f) => expectMissingMessage(f),
  'http/step-request.example.json': (f) => expectMissingMessage(f),
  'http/step-request.extra-fields.example.json': (f) => {
    expect(StepRequest.parse(f)).toMatchObject({ render: true, verbose: false });
    expectMissingMessage(f);
  },
  'http/step-response.200.example.json': (f) => {
    expect(UpstreamStepResponse.safeParse(f).success).toBe(true);
    expect(UpstreamStepResponse.safeParse(encodeStepResult(summary)).success).toBe(true);
  },
  'http/step-response.422.example.json': (f) => {
    const r = decodeStep({ action: { message: '' } });
    expect(r.ok ? null : { detail: r.detail }).toEqual(f);
  },
  'mcp/tools-list-request.json': (f) => expect(decodeWsFrame(JSON.stringify({ type: 'mcp', data: f }))).toMatchObject({ ok: true, frame: { type: 'mcp' } }),
  'ws/client-close.json': (f) => expect(decodeWsFrame(JSON.stringify(f))).toEqual({ ok: true, frame: { type: 'close' } }),
  'ws/client-mcp-tools-list.json': (f) => expect(decodeWsFrame(JSON.stringify(f))).toEqual({ ok: true, frame: f }),
  'ws/client-reset-episode.json': (f) =>
    expect(decodeWsFrame(JSON.stringify(f))).toEqual({ ok: true, frame: { type: 'reset', data: { episode_id: 'ws_test' } } }),
  'ws/client-reset.json': (f) => expect(decodeWsFrame(JSON.stringify(f))).toEqual({ ok: true, frame: { type: 'reset', data: {} } }),
  'ws/client-state.json': (f) => expect(decodeWsFrame(JSON.stringify(f))).toEqual({ ok: true, frame: { type: 'state' } }),
  'ws/client-step.json': (f) => expect(decodeWsFrame(JSON.stringify(f))).toEqual({ ok: true, frame: { type: 'step', data: { message: 'ws_step' } } }),
};

function expectMissingMessage(f: unknown): void {
  const r = decodeStep(f);
  expect(r.ok).toBe(false);
  if (!r.ok) expect(r.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'action', 'message'] });
}

const fixtureFiles = readdirSync(UPSTREAM).flatMap((dir) => readdirSync(path.join(UPSTREAM, dir)).map((f) => `${dir}/${f}`));

describe('OpenEnv fixtures', () => {
  it('every upstream fixture has a case here', () => {
    expect(fixtureFiles.length).toBeGreaterThan(10);
    expect(fixtureFiles.filter((f) => !(f in cases))).toEqual([]);
  });
  it.each(fixtureFiles)('%s', (file) => cases[file]?.(read(file)));
});

describe('/ws frames this lib writes', () => {
  it('answer with upstream WSObservationResponse / WSStateResponse / WSErrorResponse shapes', () => {
    expect(wsObservation(encodeStepResult(summary))).toEqual({
      type: 'observation',
      data: { observation: expect.objectContaining({ response: 'hi', turn_number: 1 }), reward: 1, done: false },
    });
    expect(wsState({ episode_id: 'e', step_count: 2 })).toEqual({ type: 'state', data: { episode_id: 'e', step_count: 2 } });
    expect(wsError('UNKNOWN_TYPE', 'x')).toEqual({ type: 'error', data: { message: 'x', code: 'UNKNOWN_TYPE' } });
  });
  it('refuses bad frames with OpenEnv error codes', () => {
    expect(decodeWsFrame('{not json')).toMatchObject({ ok: false, code: 'INVALID_JSON' });
    expect(decodeWsFrame('{"type":"dance"}')).toMatchObject({ ok: false, code: 'UNKNOWN_TYPE' });
    expect(decodeWsFrame('[1]')).toMatchObject({ ok: false, code: 'UNKNOWN_TYPE' });
    expect(decodeWsFrame('{"type":"step"}')).toMatchObject({ ok: false, code: 'VALIDATION_ERROR' });
  });
});
