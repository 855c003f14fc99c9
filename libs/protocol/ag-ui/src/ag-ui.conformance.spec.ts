import { EventType, type BaseEvent } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { verifyEvents } from '@ag-ui/client';
import { foldHarness, HubEvent, type Recorded } from '@hub/domain';
import { applyPatch, type Operation } from 'fast-json-patch';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { from, lastValueFrom, toArray, type OperatorFunction } from 'rxjs';
import { decodeRun, planRun } from './decode';
import { encodeEvent, finishRun, messagesOf, startRun, type Frame, type RunView } from './encode';
import { foldAgUi, initialAgUiView, type AgUiView } from './view';

// Walks the fixtures: requests decode (and plan), invalid ones are refused with their code and
// field, and recorded streams encode into AG-UI events that @ag-ui/core's schemas accept, that
// @ag-ui/client's own verifier accepts, and whose STATE_SNAPSHOT + STATE_DELTAs, applied with
// fast-json-patch, are the HarnessState the transport folds.

const DIR = path.join(__dirname, 'fixtures');
const read = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));
const streamOf = (name: string): Recorded<HubEvent>[] =>
  (read(path.join(DIR, 'streams', name)) as unknown[]).map((e, i) => ({
    ...HubEvent.parse(e),
    eventId: `e${i}`,
    tenantId: 'tn',
    streamId: 'session-x',
    streamPosition: i + 1,
    globalPosition: 100 + i,
    createdAt: '2026-01-01T00:00:00.000Z',
    metadata: { correlationId: 'c' },
  }));

describe.each(readdirSync(path.join(DIR, 'requests')).map((f) => [f] as const))('request %s', (file) => {
  it('decodes, and plans against an empty session', () => {
    const decoded = decodeRun(read(path.join(DIR, 'requests', file)));
    if (!decoded.ok) throw new Error(`${decoded.error.code}: ${decoded.error.message}`);
    const plan = planRun(decoded.request, initialAgUiView());
    const kind = file.split('--')[0];
    expect(plan.kind).toBe(kind);
  });
});

describe('invalid requests', () => {
  const cases = read(path.join(DIR, 'invalid-requests.json')) as { name: string; body: unknown; code: string; path: string }[];
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const decoded = decodeRun(c.body);
    expect(decoded.ok ? 'ok' : [decoded.error.code, decoded.error.path]).toEqual([c.code, c.path]);
  });
});

/** Streams `events` as one run following `follow`, from the view after `before` events; stops where the run ends. */
function streamRun(events: Recorded<HubEvent>[], before: number, run: RunView, messages = false): { frames: Frame[]; view: AgUiView; consumed: number } {
  const started = startRun(foldAgUi(events.slice(0, before)), run, { cursor: events[before - 1]?.globalPosition ?? 0, messages });
  let view = started.view;
  const frames = [...started.frames];
  for (let i = before; i < events.length; i++) {
    const next = encodeEvent(view, events[i] as Recorded<HubEvent>);
    view = next.view;
    frames.push(...next.frames);
    const end = finishRun(view, run);
    if (end) return { frames: [...frames, ...end.frames], view: end.view, consumed: i + 1 };
  }
  return { frames, view, consumed: events.length };
}

// @ag-ui/client pins its own copy of rxjs: the operator is the same at run time, its type is another package's.
const verify = verifyEvents(false) as unknown as OperatorFunction<BaseEvent, BaseEvent>;

async function verified(frames: Frame[]): Promise<BaseEvent[]> {
  return lastValueFrom(from(frames.map((f) => f.event)).pipe(verify, toArray()));
}

function stateFrom(frames: Frame[]): unknown {
  let state: unknown = undefined;
  for (const { event } of frames) {
    if (event.type === EventType.STATE_SNAPSHOT) state = structuredClone((event as unknown as { snapshot: unknown }).snapshot);
    if (event.type === EventType.STATE_DELTA) state = applyPatch(state, (event as unknown as { delta: Operation[] }).delta, true, false).newDocument;
  }
  return state;
}

describe('stream approval.json: a text, a tool call that needs approval, its answer, the rest', () => {
  const events = streamOf('approval.json');
  const first = streamRun(events, 2, { threadId: 'ag-thread-1', runId: 't1', follow: 't1' });
  const resumed = streamRun(events, first.consumed, { threadId: 'ag-thread-1', runId: 'r2', follow: 't1' });

  it('every event is valid for @ag-ui/core and passes @ag-ui/client verifyEvents, run by run', async () => {
    for (const run of [first, resumed]) {
      for (const { event } of run.frames) expect(EventSchemas.safeParse(event).error).toBeUndefined();
      await expect(verified(run.frames)).resolves.toHaveLength(run.frames.length);
    }
  });

  it('the first run ends at the approval: its message ended, an interrupt naming the approval and its tool call', () => {
    expect(first.consumed).toBe(9);
    const types = first.frames.map((f) => f.event.type);
    expect(types.slice(-2)).toEqual([EventType.TEXT_MESSAGE_END, EventType.RUN_FINISHED]);
    expect(first.frames.at(-1)?.event).toMatchObject({
      outcome: { type: 'interrupt', interrupts: [{ id: 'a1', reason: 'tool_approval', toolCallId: 'tc1', expiresAt: '2026-01-01T00:05:00.000Z' }] },
    });
    expect(types).toEqual(expect.arrayContaining([EventType.TOOL_CALL_START, EventType.TOOL_CALL_ARGS, EventType.TOOL_CALL_END]));
  });

  it('the resumed run carries the result, reopens the message, and finishes with the answer', () => {
    const types = resumed.frames.map((f) => f.event.type);
    expect(types[0]).toBe(EventType.RUN_STARTED);
    expect(types).toContain(EventType.TOOL_CALL_RESULT);
    expect(resumed.frames.find((f) => f.event.type === EventType.TOOL_CALL_RESULT)?.event).toMatchObject({ toolCallId: 'tc1', content: '{"temp":3}' });
    expect(resumed.frames.at(-1)?.event).toMatchObject({ type: EventType.RUN_FINISHED, result: { text: 'Let me check. Cold: 3 °C.' } });
  });

  it('STATE_SNAPSHOT then STATE_DELTAs, applied as JSON Patch, give the folded HarnessState at each run end', () => {
    expect(stateFrom(first.frames)).toEqual(foldHarness(events.slice(0, first.consumed)).state);
    expect(stateFrom(resumed.frames)).toEqual(foldHarness(events).state);
  });

  it('MESSAGES_SNAPSHOT on reconnect: user, assistant with its tool call, the tool result', () => {
    expect(messagesOf(foldAgUi(events))).toEqual([
      { id: 't1:u', role: 'user', content: 'What is the weather in Oslo?' },
      {
        id: 't1:m',
        role: 'assistant',
        content: 'Let me check. Cold: 3 °C.',
        toolCalls: [{ id: 'tc1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
      },
      { id: 'tc1:result', role: 'tool', toolCallId: 'tc1', content: '{"temp":3}' },
    ]);
  });

  it('a reconnect mid-message (cursor after "Let me ") gets the snapshots, the message reopened, then only what followed', async () => {
    const at = 6;
    const again = streamRun(events, at, { threadId: 'ag-thread-1', runId: 'r3', follow: 't1' }, true);
    await expect(verified(again.frames)).resolves.toHaveLength(again.frames.length);
    const text = again.frames.filter((f) => f.event.type === EventType.TEXT_MESSAGE_CONTENT).map((f) => (f.event as unknown as { delta: string }).delta);
    expect(text).toEqual(['check.']);
    expect(again.frames[1]?.event).toMatchObject({ type: EventType.MESSAGES_SNAPSHOT, messages: [{ id: 't1:u' }, { id: 't1:m', content: 'Let me ' }] });
    expect(again.frames[1]?.cursor).toBeUndefined();
    expect(again.frames.find((f) => f.event.type === EventType.TEXT_MESSAGE_START)?.event).toMatchObject({ messageId: 't1:m' });
  });

  it('a run after the hub already has its prompt follows that turn (the reconnect of a dropped stream resends it)', () => {
    const decoded = decodeRun({ threadId: 'ag-thread-1', runId: 'other', messages: [{ id: 'u-1', role: 'user', content: 'What is the weather in Oslo?' }] });
    if (!decoded.ok) throw new Error(decoded.error.message);
    expect(planRun(decoded.request, foldAgUi(events.slice(0, 5)))).toEqual({ kind: 'attach', follow: 't1' });
  });

  it('each hub event puts its global position on its last frame: the SSE id to resume after', () => {
    const withCursor = resumed.frames.filter((f) => f.cursor !== undefined).map((f) => f.cursor);
    expect(withCursor).toEqual([...withCursor].sort((a, b) => (a ?? 0) - (b ?? 0)));
    expect(withCursor.at(-1)).toBe(100 + events.length - 1);
  });
});

describe('stream failed-after-failure.json: two failed turns, the error cleared between them', () => {
  const events = streamOf('failed-after-failure.json');

  it('a failed turn ends its run with RUN_ERROR, carrying only the public message', async () => {
    const run = streamRun(events, 2, { threadId: 'ag-thread-2', runId: 't1', follow: 't1' });
    await expect(verified(run.frames)).resolves.toHaveLength(run.frames.length);
    expect(run.frames.at(-1)?.event).toMatchObject({ type: EventType.RUN_ERROR, code: 'PROVIDER_DOWN', message: 'the turn failed (PROVIDER_DOWN)' });
  });

  it("the next turn's root replace (no error key) is a JSON Patch replace of the document, and the state agrees", () => {
    const run = streamRun(events, 5, { threadId: 'ag-thread-2', runId: 't2', follow: 't2' });
    expect(stateFrom(run.frames)).toEqual(foldHarness(events).state);
    const deltas = run.frames.filter((f) => f.event.type === EventType.STATE_DELTA).map((f) => (f.event as unknown as { delta: Operation[] }).delta);
    expect(deltas.flat()).toEqual(expect.arrayContaining([expect.objectContaining({ op: 'replace', path: '' })]));
    expect(run.frames.at(-1)?.event).toMatchObject({ type: EventType.RUN_ERROR, code: 'PROVIDER_AUTH', message: 'bad key' });
  });
});
