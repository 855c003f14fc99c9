import { foldSession, sessionStreamId, type CommandMetadata, type HubCommand, type HubEvent, type Reminder } from '@hub/domain';
import { CommandHandler } from '@hub/sessions';
import { InMemoryEventLog } from '@hub/testing';
import { OfflineProvider } from '../providers/offline';
import type { ModelMessage, ModelProvider } from '../providers/types';
import { createBuiltinRegistry } from '../tools/builtin';
import { RunningTurns, type TurnLog } from './ports';
import { TurnRunner } from './turn-runner';

// Live input reaching a running turn (Harn `session/inject` steer, `session/remind`): delivered at
// the next step boundary, recorded before the model call it precedes, and never delivered once
// revoked — even when the revoke races the delivery.

const TENANT = '11111111-1111-4111-8111-111111111111';
const SESSION = 's1';

function setup() {
  const log = new InMemoryEventLog();
  const followUps = { scheduleTurn: async () => undefined, scheduleApprovalExpiry: async () => undefined, signalCancel: async () => undefined };
  const commands = new CommandHandler(log, followUps);
  /** Every request the model got, as the messages it was sent. */
  const requests: ModelMessage[][] = [];
  const offline = new OfflineProvider({ delayMs: 0 });
  const provider: ModelProvider = { name: 'offline', model: 'm', stream: (req) => (requests.push([...req.messages]), offline.stream(req)) };
  let n = 0;
  const meta = (): CommandMetadata => ({
    commandId: `c${++n}`,
    tenantId: TENANT,
    now: '2026-01-01T00:00:00.000Z',
    correlationId: 'corr',
    actor: { type: 'api_key', id: 'k' },
    protocol: 'acp',
  });
  const send = async (c: HubCommand) => {
    const r = await commands.handle(c, meta());
    if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
    return r;
  };
  const submit = (turnId: string, prompt: string, delivery?: 'steer') =>
    send({ type: 'SubmitTurn', sessionId: SESSION, turnId, prompt, context: delivery ? { delivery } : {}, busyPolicy: 'enqueue' });
  const runner = (turnLog: TurnLog = log) =>
    new TurnRunner({
      log: turnLog,
      scheduler: followUps,
      running: new RunningTurns(),
      provider,
      tools: createBuiltinRegistry(),
      worker: { type: 'worker', id: 'w' },
      maxSteps: 8,
      approvalTtlMs: 0,
      flush: { maxChars: 64, maxDelayMs: 1000 },
    });
  const run = (turnId: string, turnLog?: TurnLog) =>
    runner(turnLog).run({ tenantId: TENANT, sessionId: SESSION, turnId, trace: { correlationId: 'corr' }, causationId: `job-${turnId}`, finalAttempt: false });
  const events = (): HubEvent[] => log.all(TENANT, sessionStreamId(SESSION));
  const approveAll = async () => {
    for (const e of events())
      if (e.type === 'ApprovalRequested')
        await send({ type: 'ResolveApproval', sessionId: SESSION, approvalId: e.data.approvalId, decision: 'approved', reason: null });
  };
  const text = (turnId: string) =>
    events()
      .filter((e) => e.type === 'TurnCompleted' && e.data.turnId === turnId)
      .map((e) => (e.data as { text: string }).text)
      .join('');
  const started = () =>
    events()
      .filter((e) => e.type === 'TurnStarted')
      .map((e) => (e.data as { turnId: string }).turnId);
  return { log, send, submit, run, events, approveAll, requests, text, started };
}

const sawUser = (requests: ModelMessage[][], text: string) => requests.some((r) => r.some((m) => m.role === 'user' && m.content.includes(text)));

describe('steer: a queued message delivered into the running turn', () => {
  it('reaches the model at the next step boundary; its turn never starts; queue-mode stays after the turn', async () => {
    const h = setup();
    await h.submit('t1', 'write "x" to a.txt');
    expect(await h.run('t1')).toBe('suspended');
    await h.submit('steer-1', 'calculate 6 * 7', 'steer');
    await h.submit('queued-1', 'calculate 1 + 1');
    await h.approveAll();
    expect(await h.run('t1')).toBe('completed');

    const injected = h.events().filter((e) => e.type === 'UserMessageInjected');
    expect(injected.map((e) => e.data)).toEqual([{ turnId: 't1', fromTurnId: 'steer-1', messageId: 'steer-1:u', text: 'calculate 6 * 7', beforeStep: 1 }]);
    // The request after the write's result ends with the steered message, and the model acted on it.
    const second = h.requests[1] ?? [];
    expect(second.slice(-2).map((m) => m.role)).toEqual(['tool', 'user']);
    expect(second[second.length - 1]?.content).toBe('calculate 6 * 7');
    expect(h.text('t1')).toContain('The result is 42');
    expect(h.started()).toEqual(['t1', 'queued-1']);
    const state = foldSession(h.events());
    expect(state.status !== 'new' && state.finishedTurns.get('steer-1')).toBe('delivered');
    // Revoking after delivery is refused, not silently accepted.
    await expect(h.send({ type: 'CancelTurn', sessionId: SESSION, turnId: 'steer-1', reason: 'user' })).rejects.toThrow(/NO_ACTIVE_TURN/);
  });

  it('a steer revoked before the boundary never reaches the model', async () => {
    const h = setup();
    await h.submit('t1', 'write "x" to a.txt');
    await h.run('t1');
    await h.submit('steer-1', 'calculate 1000 * 7', 'steer');
    await h.send({ type: 'CancelTurn', sessionId: SESSION, turnId: 'steer-1', reason: 'user' });
    await h.approveAll();
    expect(await h.run('t1')).toBe('completed');
    expect(h.events().some((e) => e.type === 'UserMessageInjected')).toBe(false);
    expect(sawUser(h.requests, '1000 * 7')).toBe(false);
    expect(h.text('t1')).not.toContain('7000');
  });

  it('a revoke that lands while the delivery is being appended wins: the delivery conflicts and is re-planned away', async () => {
    const h = setup();
    await h.submit('t1', 'write "x" to a.txt');
    await h.run('t1');
    await h.submit('steer-1', 'calculate 1000 * 7', 'steer');
    await h.approveAll();
    let raced = false;
    const racing: TurnLog = {
      readStream: (t, s, o) => h.log.readStream(t, s, o),
      append: async (t, s, events, opts) => {
        if (!raced && events.some((e) => e.type === 'UserMessageInjected')) {
          raced = true;
          await h.send({ type: 'CancelTurn', sessionId: SESSION, turnId: 'steer-1', reason: 'user' });
        }
        return h.log.append(t, s, events, opts);
      },
    };
    expect(await h.run('t1', racing)).toBe('completed');
    expect(raced).toBe(true);
    expect(h.events().some((e) => e.type === 'UserMessageInjected')).toBe(false);
    expect(sawUser(h.requests, '1000 * 7')).toBe(false);
  });

  it('with no turn running, a steer simply starts as a turn', async () => {
    const h = setup();
    await h.submit('steer-1', 'calculate 2 * 3', 'steer');
    expect(await h.run('steer-1')).toBe('completed');
    expect(h.text('steer-1')).toContain('The result is 6');
  });
});

const reminder = (reminderId: string, body: string, over: Partial<Reminder> = {}): Reminder => ({
  reminderId,
  body,
  tags: ['workspace'],
  dedupeKey: null,
  ttlTurns: 1,
  roleHint: 'system',
  mode: 'interrupt_immediate',
  propagate: null,
  preserveOnCompact: false,
  source: 'host',
  meta: {},
  ...over,
});

describe('reminders', () => {
  it('render into the system prompt at the next boundary and expire after ttlTurns turns', async () => {
    const h = setup();
    await h.send({ type: 'QueueReminder', sessionId: SESSION, reminder: reminder('r1', 'Re-read src/lib.rs.', { ttlTurns: 2 }) });
    await h.submit('t1', 'what are my system reminders?');
    await h.run('t1');
    expect(h.text('t1')).toBe('I see these system reminders: "Re-read src/lib.rs.".');
    expect(
      h
        .events()
        .filter((e) => e.type === 'ReminderEmitted')
        .map((e) => e.data),
    ).toEqual([{ turnId: 't1', reminderId: 'r1', beforeStep: 0, renderedRole: 'system' }]);
    await h.submit('t2', 'system reminders again');
    await h.run('t2');
    expect(h.text('t2')).toContain('Re-read src/lib.rs.');
    await h.submit('t3', 'system reminders once more');
    await h.run('t3');
    expect(h.text('t3')).toBe('I see no system reminders.');
  });

  it('a revoked, an audit_only and a deduped reminder never reach the model', async () => {
    const h = setup();
    await h.send({ type: 'QueueReminder', sessionId: SESSION, reminder: reminder('gone', 'revoked body') });
    await h.send({ type: 'RevokeReminder', sessionId: SESSION, reminderId: 'gone' });
    await h.send({ type: 'QueueReminder', sessionId: SESSION, reminder: reminder('audit', 'audit body', { mode: 'audit_only' }) });
    await h.send({ type: 'QueueReminder', sessionId: SESSION, reminder: reminder('old', 'old body', { dedupeKey: 'k' }) });
    await h.send({ type: 'QueueReminder', sessionId: SESSION, reminder: reminder('new', 'new body', { dedupeKey: 'k' }) });
    await h.submit('t1', 'what are my system reminders?');
    await h.run('t1');
    expect(h.text('t1')).toBe('I see these system reminders: "new body".');
    const emitted = h
      .events()
      .filter((e) => e.type === 'ReminderEmitted')
      .map((e) => e.data);
    expect(emitted).toEqual([
      { turnId: 't1', reminderId: 'new', beforeStep: 0, renderedRole: 'system' },
      { turnId: 't1', reminderId: 'audit', beforeStep: null, renderedRole: null },
    ]);
    expect(h.requests.flat().some((m) => /revoked body|audit body|old body/.test(m.content))).toBe(false);
    await expect(h.send({ type: 'RevokeReminder', sessionId: SESSION, reminderId: 'new' })).rejects.toThrow(/already_delivered/);
    await expect(h.send({ type: 'RevokeReminder', sessionId: SESSION, reminderId: 'nope' })).rejects.toThrow(/unknown_reminder_id/);
    expect((await h.send({ type: 'RevokeReminder', sessionId: SESSION, reminderId: 'gone' })).events).toEqual([]);
  });

  it('a reminder queued mid-turn is delivered before the next model call of that turn', async () => {
    const h = setup();
    await h.submit('t1', 'write "x" to a.txt');
    await h.run('t1');
    await h.send({ type: 'QueueReminder', sessionId: SESSION, reminder: reminder('r1', 'workspace changed') });
    await h.approveAll();
    await h.run('t1');
    expect(h.events().find((e) => e.type === 'ReminderEmitted')?.data).toEqual(expect.objectContaining({ turnId: 't1', beforeStep: 1 }));
    expect(h.requests[0]?.[0]?.content).not.toContain('workspace changed');
    expect(h.requests[1]?.[0]?.content).toContain('System reminder:\nworkspace changed');
  });
});
