import { sessionStreamId, type CommandMetadata, type HubEvent } from '@hub/domain';
import { CommandHandler, type ScheduledTurn } from '@hub/sessions';
import { InMemoryEventLog } from '@hub/testing';
import { OfflineProvider } from '../providers/offline';
import type { ModelProvider, ModelRequest } from '../providers/types';
import { createBuiltinRegistry } from '../tools/builtin';
import { RunningTurns } from './ports';
import { TurnRunner } from './turn-runner';

// ADR 0033: ingress may append a turn's TurnQueued just after a worker took the job and read the
// log. The worker's first append then conflicts; the wait changes nothing it planned from, so it
// appends the same events after it instead of asking the model again.

const TENANT = '11111111-1111-4111-8111-111111111111';
const stream = sessionStreamId('s1');

it('a TurnQueued that lands between the worker’s read and its first append costs no second model call', async () => {
  const log = new InMemoryEventLog();
  const followUps = { scheduleTurn: async () => undefined, scheduleApprovalExpiry: async () => undefined, signalCancel: async () => undefined };
  const meta: CommandMetadata = {
    commandId: 'c1',
    tenantId: TENANT,
    now: '2026-11-26T10:00:00.000Z',
    correlationId: 'corr',
    actor: { type: 'api_key', id: 'k' },
    protocol: 'transport',
  };
  await new CommandHandler(log, followUps).handle(
    { type: 'SubmitTurn', sessionId: 's1', turnId: 't1', prompt: 'calculate 2 * 21', context: {}, busyPolicy: 'enqueue' },
    meta,
  );

  const offline = new OfflineProvider({ delayMs: 0 });
  let calls = 0;
  const provider: ModelProvider = { name: offline.name, model: offline.model, stream: (req: ModelRequest) => (calls++, offline.stream(req)) };
  let raced = false;
  log.beforeAppend = async (tenantId, streamId) => {
    if (raced) return;
    raced = true;
    const queued: HubEvent = { type: 'TurnQueued', data: { turnId: 't1', reason: 'capacity', since: meta.now } };
    await log.append(tenantId, streamId, [{ ...queued, metadata: { correlationId: 'corr', actor: { type: 'system', id: 'ingress' } } }], {
      expectedVersion: log.all(tenantId, streamId).length,
    });
  };
  const runner = new TurnRunner({
    log,
    scheduler: followUps,
    running: new RunningTurns(),
    provider,
    tools: createBuiltinRegistry(),
    worker: { type: 'worker', id: 'w1' },
    maxSteps: 8,
    approvalTtlMs: 0,
    flush: { maxChars: 16, maxDelayMs: 1000 },
  });

  expect(
    await runner.run({ tenantId: TENANT, sessionId: 's1', turnId: 't1', trace: { correlationId: 'corr' }, causationId: 'job-t1', finalAttempt: false }),
  ).toBe('completed');
  const types = log.all(TENANT, stream).map((e) => e.type);
  expect(types.slice(0, 5)).toEqual(['SessionOpened', 'TurnRequested', 'TurnStarted', 'TurnQueued', 'MessageStarted']);
  expect(types.at(-1)).toBe('TurnCompleted');
  expect(calls).toBe(types.filter((t) => t === 'ModelCallCompleted').length);
});

it('a turn a worker starts (the next queued one, in the turn end’s append) is handed over to be watched, like one ingress starts', async () => {
  const log = new InMemoryEventLog();
  const watched: ScheduledTurn[] = [];
  const followUps = {
    scheduleTurn: async () => undefined,
    scheduleApprovalExpiry: async () => undefined,
    signalCancel: async () => undefined,
    turnScheduled: (t: ScheduledTurn) => void watched.push(t),
  };
  const commands = new CommandHandler(log, followUps);
  const meta = (commandId: string): CommandMetadata => ({
    commandId,
    tenantId: TENANT,
    now: '2026-11-26T10:00:00.000Z',
    correlationId: commandId,
    actor: { type: 'api_key', id: 'k' },
    protocol: 'transport',
  });
  await commands.handle({ type: 'SubmitTurn', sessionId: 's1', turnId: 't1', prompt: 'calculate 2 * 21', context: {}, busyPolicy: 'enqueue' }, meta('c1'));
  await commands.handle({ type: 'SubmitTurn', sessionId: 's1', turnId: 't2', prompt: 'calculate 1 + 1', context: {}, busyPolicy: 'enqueue' }, meta('c2'));
  expect(watched.map((t) => t.turnId)).toEqual(['t1']);
  const runner = new TurnRunner({
    log,
    scheduler: followUps,
    running: new RunningTurns(),
    provider: new OfflineProvider({ delayMs: 0 }),
    tools: createBuiltinRegistry(),
    worker: { type: 'worker', id: 'w1' },
    maxSteps: 8,
    approvalTtlMs: 0,
    flush: { maxChars: 16, maxDelayMs: 1000 },
  });
  expect(
    await runner.run({ tenantId: TENANT, sessionId: 's1', turnId: 't1', trace: { correlationId: 'c1' }, causationId: 'job-t1', finalAttempt: false }),
  ).toBe('completed');
  const events = log.all(TENANT, stream);
  const started = events.find((e) => e.type === 'TurnStarted' && e.data.turnId === 't2');
  expect(watched[1]).toEqual({
    tenantId: TENANT,
    sessionId: 's1',
    turnId: 't2',
    key: 'start',
    version: events.length,
    since: started?.createdAt,
    metadata: started?.metadata,
  });
});
