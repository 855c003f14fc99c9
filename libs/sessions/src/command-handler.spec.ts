import { sessionStreamId, type CommandMetadata, type HubCommand } from '@hub/domain';
import { InMemoryEventLog } from '@hub/testing';
import { CommandHandler } from './command-handler';

// Issue 11, defect 9: a reused client-chosen id with other content was dropped silently.
// Two ways a repeat reaches the handler: the same turn id (the decider has seen it), and the
// same command id (the event store's idempotency key) with a new turn id.

const tenantId = '00000000-0000-4000-8000-000000000001';
const noFollowUps = { scheduleTurn: async () => undefined, signalCancel: async () => undefined };

function meta(commandId: string): CommandMetadata {
  return { commandId, tenantId, now: '2026-11-23T00:00:00.000Z', actor: { type: 'api_key', id: 'k' }, protocol: 'transport', correlationId: 'c' };
}
const submit = (turnId: string, prompt: string): HubCommand => ({ type: 'SubmitTurn', sessionId: 's-1', turnId, prompt, context: {}, busyPolicy: 'enqueue' });

describe('CommandHandler: a reused id', () => {
  let log: InMemoryEventLog;
  let handler: CommandHandler;
  beforeEach(() => {
    log = new InMemoryEventLog();
    handler = new CommandHandler(log, noFollowUps);
  });

  it('with the same prompt is the same turn again: ok, duplicate, nothing appended', async () => {
    expect(await handler.handle(submit('t1', 'hello'), meta('c1'))).toEqual(expect.objectContaining({ ok: true, duplicate: false }));
    const before = log.all(tenantId, sessionStreamId('s-1')).length;
    expect(await handler.handle(submit('t1', 'hello'), meta('c1'))).toEqual(expect.objectContaining({ ok: true, duplicate: true }));
    expect(await handler.handle(submit('t1', 'hello'), meta('c2'))).toEqual(expect.objectContaining({ ok: true, duplicate: true }));
    expect(log.all(tenantId, sessionStreamId('s-1'))).toHaveLength(before);
  });

  it('as a turn id with another prompt is refused, queued or running or ended', async () => {
    await handler.handle(submit('t1', 'hello'), meta('c1'));
    await handler.handle(submit('t2', 'queued one'), meta('c2'));
    const before = log.all(tenantId, sessionStreamId('s-1')).length;
    for (const [turnId, commandId] of [
      ['t1', 'c1'],
      ['t2', 'c9'],
    ]) {
      const outcome = await handler.handle(submit(turnId, 'something else'), meta(commandId));
      expect(outcome).toEqual({ ok: false, code: 'INVALID_COMMAND', message: `turn id ${turnId} was already used with a different prompt; send a new id` });
    }
    expect(log.all(tenantId, sessionStreamId('s-1'))).toHaveLength(before);
    // ended: its request is no longer open, so the handler finds it in the stream
    const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
    const eventMeta = { correlationId: 'c', causationId: 'x', actor: { type: 'worker', id: 'w' }, protocol: 'transport' } as const;
    await log.append(
      tenantId,
      sessionStreamId('s-1'),
      [{ type: 'TurnCompleted', data: { turnId: 't1', text: 'hi', stopReason: 'end_turn', usage }, metadata: eventMeta }],
      { expectedVersion: before },
    );
    expect(await handler.handle(submit('t1', 'hello'), meta('c7'))).toEqual(expect.objectContaining({ ok: true, duplicate: true }));
    expect(await handler.handle(submit('t1', 'bye'), meta('c8'))).toEqual(expect.objectContaining({ ok: false, code: 'INVALID_COMMAND' }));
  });

  it('as a command id with another prompt (new turn id) is refused too', async () => {
    await handler.handle(submit('t1', 'hello'), meta('req-1'));
    const outcome = await handler.handle(submit('t2', 'other'), meta('req-1'));
    expect(outcome).toEqual(expect.objectContaining({ ok: false, code: 'INVALID_COMMAND' }));
  });
});

// A client key may open a session id nobody has opened; its access was checked against "nobody's".
// Should another key open it between that check and the decision, the decision checks again.
describe('CommandHandler: a command let through because its session was not opened yet', () => {
  const refuse = () => Promise.reject(new Error('SESSION_NOT_FOUND: another key opened it'));

  it('is checked again when the session exists by the time it is decided, and appends nothing when refused', async () => {
    const log = new InMemoryEventLog();
    const handler = new CommandHandler(log, noFollowUps);
    await handler.handle(submit('t1', 'first key'), meta('k1-c1'));
    const before = log.all(tenantId, sessionStreamId('s-1')).length;
    const whenOpened = jest.fn(refuse);
    await expect(handler.handle(submit('t2', 'second key'), meta('k2-c1'), whenOpened)).rejects.toThrow('another key opened it');
    expect(whenOpened).toHaveBeenCalledTimes(1);
    expect(log.all(tenantId, sessionStreamId('s-1'))).toHaveLength(before);
  });

  it('is checked again when another command opens it between its read and its append (the version conflict)', async () => {
    const log = new InMemoryEventLog();
    const handler = new CommandHandler(log, noFollowUps);
    const append = log.append.bind(log);
    let raced = false;
    // The first append of the second key's command finds the first key's command just appended.
    jest.spyOn(log, 'append').mockImplementation(async (...args) => {
      if (!raced && args[3].idempotencyKey === 'k2-c1') {
        raced = true;
        await new CommandHandler({ readStream: log.readStream.bind(log), append }, noFollowUps).handle(submit('t1', 'first key'), meta('k1-c1'));
      }
      return append(...args);
    });
    const whenOpened = jest.fn(refuse);
    await expect(handler.handle(submit('t2', 'second key'), meta('k2-c1'), whenOpened)).rejects.toThrow('another key opened it');
    expect(raced).toBe(true);
    expect(whenOpened).toHaveBeenCalledTimes(1);
    expect(
      log
        .all(tenantId, sessionStreamId('s-1'))
        .map((e) => e.type === 'TurnRequested' && e.data.prompt)
        .filter(Boolean),
    ).toEqual(['first key']);
  });

  it('is not asked again when it opens the session itself', async () => {
    const log = new InMemoryEventLog();
    const whenOpened = jest.fn(refuse);
    expect(await new CommandHandler(log, noFollowUps).handle(submit('t1', 'hello'), meta('c1'), whenOpened)).toEqual(expect.objectContaining({ ok: true }));
    expect(whenOpened).not.toHaveBeenCalled();
  });
});
