import {
  SESSION_VIEW_VERSION,
  decodeSessionView,
  encodeSessionView,
  foldSession,
  foldSessionView,
  foldTurn,
  planNextStep,
  sessionStreamId,
  turnProgressOf,
  type CommandMetadata,
  type HubCommand,
  type HubEvent,
  type Recorded,
} from '@hub/domain';
import { CommandHandler } from '@hub/sessions';
import { InMemoryEventLog } from '@hub/testing';
import { OfflineProvider } from '../providers/offline';
import { createBuiltinRegistry } from '../tools/builtin';
import { workspaceFromEvents } from '../tools/workspace';
import { RunningTurns } from './ports';
import { buildModelMessages } from './transcript';
import { TurnRunner } from './turn-runner';

const TENANT = '11111111-1111-4111-8111-111111111111';
const SESSION = 's1';

/** A session with tools, an approval, a denial, reminders, a steer and a cancelled queued turn. */
async function recordedSession(): Promise<Recorded<HubEvent>[]> {
  const log = new InMemoryEventLog();
  const followUps = { scheduleTurn: async () => undefined, scheduleApprovalExpiry: async () => undefined, signalCancel: async () => undefined };
  const commands = new CommandHandler(log, followUps);
  let n = 0;
  const send = (c: HubCommand) =>
    commands.handle(c, {
      commandId: `c${++n}`,
      tenantId: TENANT,
      now: '2026-01-01T00:00:00.000Z',
      correlationId: 'corr',
      actor: { type: 'api_key', id: 'k' },
      protocol: 'transport',
    } satisfies CommandMetadata);
  const runner = new TurnRunner({
    log,
    scheduler: followUps,
    running: new RunningTurns(),
    provider: new OfflineProvider({ delayMs: 0 }),
    tools: createBuiltinRegistry(),
    worker: { type: 'worker', id: 'w' },
    maxSteps: 8,
    approvalTtlMs: 0,
    flush: { maxChars: 32, maxDelayMs: 1000 },
  });
  const run = (turnId: string) =>
    runner.run({ tenantId: TENANT, sessionId: SESSION, turnId, trace: { correlationId: 'corr' }, causationId: `job-${turnId}`, finalAttempt: false });
  const submit = (turnId: string, prompt: string, context: Record<string, unknown> = {}) =>
    send({ type: 'SubmitTurn', sessionId: SESSION, turnId, prompt, context, busyPolicy: 'enqueue' });
  const events = () => log.all(TENANT, sessionStreamId(SESSION));
  const approvalOf = () =>
    (
      events()
        .filter((e) => e.type === 'ApprovalRequested')
        .at(-1)?.data as { approvalId: string }
    ).approvalId;

  await submit('t1', 'read notes.txt');
  await run('t1');
  await send({
    type: 'QueueReminder',
    sessionId: SESSION,
    reminder: { reminderId: 'r1', body: 'be brief', mode: 'interrupt', dedupeKey: null, ttlTurns: 2, tags: [] },
  } as never);
  await submit('t2', 'write "hi" to a.txt');
  await run('t2');
  await send({ type: 'ResolveApproval', sessionId: SESSION, approvalId: approvalOf(), decision: 'approved', reason: null });
  await submit('t3', 'long answer 40');
  await submit('t4', 'never runs');
  await run('t2');
  await send({ type: 'CancelTurn', sessionId: SESSION, reason: 'user' });
  await submit('t5', 'delete notes.txt');
  await run('t4');
  await run('t5');
  await send({ type: 'ResolveApproval', sessionId: SESSION, approvalId: approvalOf(), decision: 'denied', reason: 'no' });
  await run('t5');
  await submit('t6', 'read a.txt');
  await run('t6');
  return events();
}

describe('session view (snapshot + tail)', () => {
  let events: Recorded<HubEvent>[];
  beforeAll(async () => {
    events = await recordedSession();
  });

  it('the recorded session covers the cases it is meant to', () => {
    const types = new Set(events.map((e) => e.type));
    for (const t of ['ApprovalResolved', 'TurnCancelled', 'ReminderEmitted', 'ToolCallCompleted', 'TurnCompleted']) expect(types).toContain(t);
    expect(SESSION_VIEW_VERSION).toBeGreaterThan(0);
  });

  it('a view stored at any position and folded on over the tail answers like a fold of the whole stream', () => {
    const turnIds = [...new Set(events.flatMap((e) => ('turnId' in e.data ? [(e.data as { turnId: string }).turnId] : [])))];
    for (let cut = 1; cut <= events.length; cut++) {
      const stored = encodeSessionView(foldSessionView(events.slice(0, cut)));
      const view = foldSessionView(events.slice(cut), decodeSessionView(stored));
      const whole = events;
      expect(encodeSessionView({ ...view, session: view.session })).toBe(encodeSessionView(foldSessionView(whole)));
      expect(JSON.stringify(buildModelMessages(view))).toBe(JSON.stringify(buildModelMessages(whole)));
      expect(view.session).toEqual(foldSession(whole));
      expect(workspaceFromEvents(view.fileEvents)).toEqual(workspaceFromEvents(whole));
      for (const turnId of turnIds) {
        const full = foldTurn(whole, turnId);
        const kept = turnProgressOf(view, turnId);
        expect(planNextStep(kept, { maxSteps: 8 })).toEqual(planNextStep(full, { maxSteps: 8 }));
        expect([kept.status, kept.usage]).toEqual([full.status === 'unknown' ? kept.status : full.status, full.usage]);
      }
    }
  });

  it('and at every prefix too (a runner step mid-turn sees what a full read would show)', () => {
    for (let end = 1; end <= events.length; end++) {
      const prefix = events.slice(0, end);
      const cut = Math.floor(end / 2);
      const view = foldSessionView(prefix.slice(cut), decodeSessionView(encodeSessionView(foldSessionView(prefix.slice(0, cut)))));
      expect(JSON.stringify(buildModelMessages(view))).toBe(JSON.stringify(buildModelMessages(prefix)));
      const open = view.session.status === 'active' ? view.session.activeTurn.turnId : null;
      if (open) expect(turnProgressOf(view, open)).toEqual(foldTurn(prefix, open));
    }
  });

  it('a runner seeded with a snapshot taken mid-answer after a crash finishes the turn: no text twice, nothing read before the snapshot', async () => {
    const log = new InMemoryEventLog();
    const followUps = { scheduleTurn: async () => undefined, scheduleApprovalExpiry: async () => undefined, signalCancel: async () => undefined };
    const meta = {
      commandId: 'c1',
      tenantId: TENANT,
      now: '2026-01-01T00:00:00.000Z',
      correlationId: 'corr',
      actor: { type: 'api_key' as const, id: 'k' },
      protocol: 'transport' as const,
    };
    await new CommandHandler(log, followUps).handle(
      { type: 'SubmitTurn', sessionId: SESSION, turnId: 't1', prompt: 'long answer 60', context: {}, busyPolicy: 'enqueue' },
      meta,
    );
    const runner = (provider: OfflineProvider | { name: string; model: string; stream: OfflineProvider['stream'] }) =>
      new TurnRunner({
        log,
        scheduler: followUps,
        running: new RunningTurns(),
        provider,
        tools: createBuiltinRegistry(),
        worker: { type: 'worker', id: 'w' },
        maxSteps: 8,
        approvalTtlMs: 0,
        flush: { maxChars: 40, maxDelayMs: 1000 },
      });
    const input = { tenantId: TENANT, sessionId: SESSION, turnId: 't1', trace: { correlationId: 'corr' }, causationId: 'job', finalAttempt: false };
    const crashing = {
      name: 'offline',
      model: 'offline',
      async *stream(req: Parameters<OfflineProvider['stream']>[0]) {
        let n = 0;
        for await (const p of new OfflineProvider({ delayMs: 0 }).stream(req)) {
          if (p.type === 'text-delta' && ++n > 30) throw new Error('worker died');
          yield p;
        }
      },
    };
    await expect(runner(crashing).run(input)).rejects.toThrow('worker died');
    const before = log.all(TENANT, sessionStreamId(SESSION));
    expect(before.filter((e) => e.type === 'TextDelta').length).toBeGreaterThan(0);
    // The snapshot the next worker starts from: everything so far, the turn mid-answer.
    const version = before.length;
    const view = decodeSessionView(encodeSessionView(foldSessionView(before)));
    const reads: number[] = [];
    const readStream = log.readStream.bind(log);
    log.readStream = (t, s, opts) => (reads.push(opts?.fromVersion ?? 0), readStream(t, s, opts));
    expect(await runner(new OfflineProvider({ delayMs: 0 })).run({ ...input, seed: { version, events: [], view } })).toBe('completed');
    expect(Math.min(...reads)).toBeGreaterThanOrEqual(version);
    const events = log.all(TENANT, sessionStreamId(SESSION));
    const deltas = events.filter((e) => e.type === 'TextDelta').map((e) => e.data as { text: string; offset: number });
    const completed = events.find((e) => e.type === 'TurnCompleted')?.data as { text: string };
    expect(deltas.map((d) => d.text).join('')).toBe(completed.text);
    let offset = 0;
    for (const d of deltas) {
      expect(d.offset).toBe(offset);
      offset += d.text.length;
    }
    expect(events.filter((e) => e.type === 'ModelCallStarted')).toHaveLength(1);
  });
});
