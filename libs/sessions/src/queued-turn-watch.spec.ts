import { sessionStreamId, type CommandMetadata, type HubCommand } from '@hub/domain';
import { InMemoryEventLog } from '@hub/testing';
import { CommandHandler } from './command-handler';
import type { FollowUps, ScheduledTurn } from './ports';
import { QueuedTurnWatch } from './queued-turn-watch';

// ADR 0033: a submitted turn whose job still waits after the grace period gets one TurnQueued;
// a turn a worker took (or that ended) gets none, and a repeat appends nothing new.

const tenantId = '00000000-0000-4000-8000-000000000001';
const stream = sessionStreamId('s-1');
const meta = (commandId: string): CommandMetadata => ({
  commandId,
  tenantId,
  now: '2026-11-26T10:00:00.000Z',
  actor: { type: 'api_key', id: 'k' },
  protocol: 'transport',
  correlationId: 'c',
});
const submit = (turnId: string): HubCommand => ({ type: 'SubmitTurn', sessionId: 's-1', turnId, prompt: 'hi', context: {}, busyPolicy: 'enqueue' });
const workerMeta = { correlationId: 'c', causationId: 'job', actor: { type: 'worker', id: 'w' }, protocol: 'transport' } as const;

describe('QueuedTurnWatch', () => {
  let log: InMemoryEventLog;
  let jobState: string;
  let scheduled: ScheduledTurn[];
  let watch: QueuedTurnWatch;
  let handler: CommandHandler;
  const warnings: string[] = [];

  beforeEach(() => {
    log = new InMemoryEventLog();
    jobState = 'waiting';
    scheduled = [];
    watch = new QueuedTurnWatch(log, { writer: 'ingress', jobState: async () => jobState, warn: (m) => warnings.push(m) });
    const followUps: FollowUps = { scheduleTurn: async () => undefined, signalCancel: async () => undefined, turnScheduled: (t) => scheduled.push(t) };
    handler = new CommandHandler(log, followUps);
  });
  afterEach(() => watch.close());

  const types = () => log.all(tenantId, stream).map((e) => e.type);

  it('the command handler hands over each turn it schedules, with where the stream was left', async () => {
    await handler.handle(submit('t1'), meta('c1'));
    const started = log.all(tenantId, stream).find((e) => e.type === 'TurnStarted');
    expect(scheduled).toEqual([
      expect.objectContaining({
        tenantId,
        sessionId: 's-1',
        turnId: 't1',
        key: 'start',
        version: started?.streamPosition,
        since: started?.createdAt,
        metadata: expect.objectContaining({ correlationId: 'c', causationId: 'c1', protocol: 'transport' }),
      }),
    ]);
  });

  it('a job still waiting gets one TurnQueued, written by ingress with the command’s correlation', async () => {
    await handler.handle(submit('t1'), meta('c1'));
    expect(await watch.check(scheduled[0])).toBe(true);
    const queued = log.all(tenantId, stream).at(-1);
    expect(queued).toMatchObject({
      type: 'TurnQueued',
      data: { turnId: 't1', reason: 'capacity', since: scheduled[0].since },
      metadata: { correlationId: 'c', actor: { type: 'system', id: 'ingress' } },
    });
    // The same scheduling looked at again (a repeated submit scheduled it again): nothing new.
    expect(await watch.check(scheduled[0])).toBe(false);
    expect(types().filter((t) => t === 'TurnQueued')).toHaveLength(1);
  });

  it.each(['active', 'completed', 'failed', 'delayed', 'unknown'])(
    'a job %s gets nothing (a worker holds it, or it is no longer waiting for capacity)',
    async (state) => {
      await handler.handle(submit('t1'), meta('c1'));
      jobState = state;
      expect(await watch.check(scheduled[0])).toBe(false);
      expect(types()).not.toContain('TurnQueued');
    },
  );

  it('a turn with an event after its scheduling (the worker wrote between the look and the append) gets nothing', async () => {
    await handler.handle(submit('t1'), meta('c1'));
    const version = log.all(tenantId, stream).length;
    await log.append(tenantId, stream, [{ type: 'MessageStarted', data: { turnId: 't1', messageId: 't1:m', role: 'assistant' }, metadata: workerMeta }], {
      expectedVersion: version,
    });
    expect(await watch.check(scheduled[0])).toBe(false);
    expect(types()).not.toContain('TurnQueued');
  });

  it("another turn's events after the scheduling do not hide the wait (a second submit queued behind it)", async () => {
    await handler.handle(submit('t1'), meta('c1'));
    await handler.handle(submit('t2'), meta('c2'));
    expect(await watch.check(scheduled[0])).toBe(true);
    expect(types().slice(-2)).toEqual(['TurnRequested', 'TurnQueued']);
  });

  it('looks once per turn after the grace period, on a timer that does not hold the process', async () => {
    jest.useFakeTimers();
    try {
      await handler.handle(submit('t1'), meta('c1'));
      watch.watch(scheduled[0]);
      expect(watch.pending).toBe(1);
      await jest.advanceTimersByTimeAsync(999);
      expect(types()).not.toContain('TurnQueued');
      await jest.advanceTimersByTimeAsync(1);
      expect(watch.pending).toBe(0);
      expect(types()).toContain('TurnQueued');
    } finally {
      jest.useRealTimers();
    }
  });

  it('a failed look is a warning, never a rejection; closing drops the looks not taken', async () => {
    jest.useFakeTimers();
    try {
      const broken = new QueuedTurnWatch(log, {
        graceMs: 10,
        writer: 'ingress',
        jobState: () => Promise.reject(new Error('redis down')),
        warn: (m) => warnings.push(m),
      });
      await handler.handle(submit('t1'), meta('c1'));
      broken.watch(scheduled[0]);
      await jest.advanceTimersByTimeAsync(10);
      expect(warnings.at(-1)).toContain('redis down');
      watch.watch(scheduled[0]);
      watch.close();
      await jest.advanceTimersByTimeAsync(2000);
      expect(types()).not.toContain('TurnQueued');
    } finally {
      jest.useRealTimers();
    }
  });
});
