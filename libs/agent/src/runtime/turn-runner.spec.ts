import { sessionStreamId, type CommandMetadata, type HubCommand, type HubEvent } from '@hub/domain';
import { CommandHandler } from '@hub/sessions';
import { InMemoryEventLog } from '@hub/testing';
import { OfflineProvider } from '../providers/offline';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../providers/types';
import { ProviderError } from '../providers/types';
import { createBuiltinRegistry } from '../tools/builtin';
import { ToolRegistry } from '../tools/registry';
import { RunningTurns } from './ports';
import { TurnRunner } from './turn-runner';

const TENANT = '11111111-1111-4111-8111-111111111111';
const SESSION = 's1';

function setup(provider: ModelProvider = new OfflineProvider({ delayMs: 0 }), tools = createBuiltinRegistry()) {
  const log = new InMemoryEventLog();
  const scheduled: { turnId: string; key: string }[] = [];
  const cancels: string[] = [];
  /** Each `turnEnded` follow-up: the turn, and the turn's events in the session it was given. */
  const ended: { turnId: string; types: string[] }[] = [];
  const followUps = {
    turnEnded: async (_t: string, _s: string, turnId: string, session: readonly HubEvent[]) =>
      void ended.push({ turnId, types: session.filter((e) => 'turnId' in e.data && (e.data as { turnId: string }).turnId === turnId).map((e) => e.type) }),
    scheduleTurn: async (_t: string, _s: string, turnId: string, key: string) => void scheduled.push({ turnId, key }),
    scheduleApprovalExpiry: async () => undefined,
    signalCancel: async (_t: string, turnId: string) => void cancels.push(turnId),
  };
  const commands = new CommandHandler(log, followUps);
  const make = (p: ModelProvider) =>
    new TurnRunner({
      log,
      scheduler: followUps,
      running: new RunningTurns(),
      provider: p,
      tools,
      worker: { type: 'worker', id: 'w1' },
      maxSteps: 8,
      approvalTtlMs: 0,
      flush: { maxChars: 16, maxDelayMs: 1000 },
    });
  let n = 0;
  const meta = (): CommandMetadata => ({
    commandId: `c${++n}`,
    tenantId: TENANT,
    now: '2026-01-01T00:00:00.000Z',
    correlationId: 'corr',
    actor: { type: 'api_key', id: 'hub_k' },
    protocol: 'transport',
  });
  const send = (c: HubCommand) => commands.handle(c, meta());
  const submit = (turnId: string, prompt: string) => send({ type: 'SubmitTurn', sessionId: SESSION, turnId, prompt, context: {}, busyPolicy: 'enqueue' });
  const run = (turnId: string, r = make(provider), finalAttempt = false) =>
    r.run({ tenantId: TENANT, sessionId: SESSION, turnId, trace: { correlationId: 'corr' }, causationId: `job-${turnId}`, finalAttempt });
  const events = () => log.all(TENANT, sessionStreamId(SESSION));
  const types = (turnId: string) =>
    events()
      .filter((e) => 'turnId' in e.data && (e.data as { turnId: string }).turnId === turnId)
      .map((e) => e.type);
  return { log, scheduled, cancels, ended, send, submit, run, events, types, make };
}

const completedText = (events: HubEvent[]) => events.filter((e) => e.type === 'TurnCompleted').map((e) => (e.data as { text: string }).text);

describe('TurnRunner', () => {
  it('runs a ReAct turn with a read-only tool to its answer', async () => {
    const h = setup();
    await h.submit('t1', 'read notes.txt');
    expect(await h.run('t1')).toBe('completed');
    expect(h.types('t1').filter((t) => t !== 'TextDelta')).toEqual([
      'TurnRequested',
      'TurnStarted',
      'MessageStarted',
      'ModelCallStarted',
      'ModelCallCompleted',
      'ToolCallStarted',
      'ToolCallCompleted',
      'ModelCallStarted',
      'ModelCallCompleted',
      'MessageCompleted',
      'TurnCompleted',
    ]);
    expect(completedText(h.events())[0]).toContain('The file notes.txt says: Remember to water the plants');
    const meta = h.events().find((e) => e.type === 'TurnCompleted')?.metadata;
    expect(meta).toEqual(expect.objectContaining({ correlationId: 'corr', causationId: 'job-t1', protocol: 'transport', actor: { type: 'worker', id: 'w1' } }));
  });

  it('goes on from a seeded read: the stream is not read from the start again', async () => {
    const h = setup();
    await h.submit('t1', 'read notes.txt');
    const seed = await h.log.readStream(TENANT, sessionStreamId(SESSION));
    const reads: (number | undefined)[] = [];
    const readStream = h.log.readStream.bind(h.log);
    h.log.readStream = (tenantId, streamId, opts) => (reads.push(opts?.fromVersion), readStream(tenantId, streamId, opts));
    const outcome = await h
      .make(new OfflineProvider({ delayMs: 0 }))
      .run({ tenantId: TENANT, sessionId: SESSION, turnId: 't1', trace: { correlationId: 'corr' }, causationId: 'job', finalAttempt: false, seed });
    expect(outcome).toBe('completed');
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((v) => v !== undefined && v >= seed.version)).toBe(true);
    expect(completedText(h.events())[0]).toContain('Remember to water the plants');
  });

  it('writes a one-call turn in one append, reading nothing after its seed (start, text, outcome and end together)', async () => {
    const h = setup();
    await h.submit('t1', 'hello');
    const seed = await h.log.readStream(TENANT, sessionStreamId(SESSION));
    let appends = 0;
    let reads = 0;
    const append = h.log.append.bind(h.log);
    const readStream = h.log.readStream.bind(h.log);
    h.log.append = (...args) => (appends++, append(...args));
    h.log.readStream = (...args) => (reads++, readStream(...args));
    const runner = new TurnRunner({
      log: h.log,
      scheduler: { scheduleTurn: async () => undefined, scheduleApprovalExpiry: async () => undefined },
      running: new RunningTurns(),
      provider: new OfflineProvider({ delayMs: 0 }),
      tools: createBuiltinRegistry(),
      worker: { type: 'worker', id: 'w1' },
      maxSteps: 8,
      approvalTtlMs: 0,
      flush: { maxChars: 8192, maxDelayMs: 50 },
    });
    const run = runner.run({
      tenantId: TENANT,
      sessionId: SESSION,
      turnId: 't1',
      trace: { correlationId: 'corr' },
      causationId: 'job',
      finalAttempt: false,
      seed,
    });
    expect(await run).toBe('completed');
    expect([appends, reads]).toEqual([1, 0]);
    expect(h.types('t1')).toEqual([
      'TurnRequested',
      'TurnStarted',
      'MessageStarted',
      'ModelCallStarted',
      'TextDelta',
      'ModelCallCompleted',
      'MessageCompleted',
      'TurnCompleted',
    ]);
  });

  it("writes a silent model's start within one flush window, before its first word", async () => {
    let speak: () => void = () => undefined;
    const spoken = new Promise<void>((r) => (speak = r));
    const silent: ModelProvider = {
      name: 'offline',
      model: 'offline',
      async *stream(req: ModelRequest): AsyncIterable<ModelStreamPart> {
        await spoken;
        yield* new OfflineProvider({ delayMs: 0 }).stream(req);
      },
    };
    const h = setup();
    await h.submit('t1', 'hello');
    const runner = new TurnRunner({
      log: h.log,
      scheduler: { scheduleTurn: async () => undefined, scheduleApprovalExpiry: async () => undefined },
      running: new RunningTurns(),
      provider: silent,
      tools: createBuiltinRegistry(),
      worker: { type: 'worker', id: 'w1' },
      maxSteps: 8,
      approvalTtlMs: 0,
      flush: { maxChars: 1000, maxDelayMs: 20 },
    });
    const run = runner.run({ tenantId: TENANT, sessionId: SESSION, turnId: 't1', trace: { correlationId: 'corr' }, causationId: 'job', finalAttempt: false });
    const deadline = Date.now() + 2000;
    while (!h.types('t1').includes('ModelCallStarted') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(h.types('t1')).toEqual(['TurnRequested', 'TurnStarted', 'MessageStarted', 'ModelCallStarted']);
    speak();
    expect(await run).toBe('completed');
    expect(h.types('t1').at(-1)).toBe('TurnCompleted');
  });

  it('does not run a tool on a turn cancelled after its start was recorded', async () => {
    const builtins = createBuiltinRegistry();
    let ran = 0;
    const tools = new ToolRegistry(
      builtins.list().map((t) => (t.name === 'read_file' ? { ...t, execute: (...a: Parameters<typeof t.execute>) => (ran++, t.execute(...a)) } : t)),
    );
    const h = setup(undefined, tools);
    await h.submit('t1', 'read notes.txt');
    const append = h.log.append.bind(h.log);
    h.log.append = async (...args) => {
      const res = await append(...args);
      if (args[2].some((e) => e.type === 'ToolCallStarted')) await h.send({ type: 'CancelTurn', sessionId: SESSION, reason: 'user' });
      return res;
    };
    expect(await h.run('t1')).toBe('stopped');
    expect(ran).toBe(0);
    expect(h.types('t1')).not.toContain('ToolCallCompleted');
  });

  it('suspends on an ask tool and continues after approval, the write taking effect', async () => {
    const h = setup();
    await h.submit('t1', 'write "hello" to a.txt');
    expect(await h.run('t1')).toBe('suspended');
    const asked = h.events().find((e) => e.type === 'ApprovalRequested');
    expect(asked?.data).toEqual(expect.objectContaining({ toolName: 'write_file', riskTier: 'medium', deadlineAt: null }));
    const approvalId = (asked?.data as { approvalId: string }).approvalId;
    expect(await h.run('t1')).toBe('suspended'); // nothing to do until someone answers
    await h.send({ type: 'ResolveApproval', sessionId: SESSION, approvalId, decision: 'approved', reason: null });
    expect(h.scheduled).toContainEqual({ turnId: 't1', key: `approval:${approvalId}` });
    expect(await h.run('t1')).toBe('completed');
    await h.submit('t2', 'read a.txt');
    await h.run('t2');
    expect(completedText(h.events())[1]).toContain('The file a.txt says: hello');
  });

  it("schedules an approval's deadline before the approval is appended: a worker dying between the two leaves no approval without one", async () => {
    const h = setup();
    const expiries: { approvalId: string; deadlineAt?: string; appendedYet: boolean }[] = [];
    const scheduler = {
      scheduleTurn: async () => undefined,
      scheduleApprovalExpiry: async (_t: string, _s: string, approvalId: string, _ms: number, deadlineAt?: string) =>
        void expiries.push({ approvalId, deadlineAt, appendedYet: h.events().some((e) => e.type === 'ApprovalRequested') }),
    };
    const runner = new TurnRunner({
      log: h.log,
      scheduler,
      running: new RunningTurns(),
      provider: new OfflineProvider({ delayMs: 0 }),
      tools: createBuiltinRegistry(),
      worker: { type: 'worker', id: 'w1' },
      maxSteps: 8,
      approvalTtlMs: 60_000,
      flush: { maxChars: 16, maxDelayMs: 1000 },
    });
    await h.submit('t1', 'write "hello" to a.txt');
    expect(
      await runner.run({ tenantId: TENANT, sessionId: SESSION, turnId: 't1', trace: { correlationId: 'corr' }, causationId: 'job-t1', finalAttempt: false }),
    ).toBe('suspended');
    const asked = h.events().find((e) => e.type === 'ApprovalRequested')?.data as { approvalId: string; deadlineAt: string };
    expect(expiries).toEqual([{ approvalId: asked.approvalId, deadlineAt: asked.deadlineAt, appendedYet: false }]);
  });

  it('reports a denied call to the model, and the turn goes on to an answer', async () => {
    const h = setup();
    await h.submit('t1', 'delete notes.txt');
    await h.run('t1');
    const approvalId = (h.events().find((e) => e.type === 'ApprovalRequested')?.data as { approvalId: string }).approvalId;
    await h.send({ type: 'ResolveApproval', sessionId: SESSION, approvalId, decision: 'denied', reason: 'no' });
    expect(await h.run('t1')).toBe('completed');
    expect(h.events().find((e) => e.type === 'ToolCallCompleted')?.data).toEqual(expect.objectContaining({ status: 'denied', output: 'DENIED: no' }));
    expect(completedText(h.events())[0]).toMatch(/delete_file call was denied/);
  });

  it('after a crash mid-stream, a retry skips the recorded text: no duplicate, same answer', async () => {
    const reference = setup();
    await reference.submit('t1', 'long answer 60');
    await reference.run('t1');
    const expected = completedText(reference.events())[0];

    const h = setup();
    await h.submit('t1', 'long answer 60');
    const crashing: ModelProvider = {
      name: 'offline',
      model: 'offline',
      async *stream(req: ModelRequest): AsyncIterable<ModelStreamPart> {
        let n = 0;
        for await (const p of new OfflineProvider({ delayMs: 0 }).stream(req)) {
          if (p.type === 'text-delta' && ++n > 25) throw new Error('worker died');
          yield p;
        }
      },
    };
    await expect(h.run('t1', h.make(crashing))).rejects.toThrow('worker died');
    const partial = h.events().filter((e) => e.type === 'TextDelta').length;
    expect(partial).toBeGreaterThan(0);
    expect(await h.run('t1')).toBe('completed');
    const deltas = h
      .events()
      .filter((e) => e.type === 'TextDelta')
      .map((e) => e.data as { text: string; offset: number });
    expect(deltas.map((d) => d.text).join('')).toBe(expected);
    let offset = 0;
    for (const d of deltas) {
      expect(d.offset).toBe(offset);
      offset += d.text.length;
    }
    expect(h.events().filter((e) => e.type === 'ModelCallStarted')).toHaveLength(1);
  });

  it('fails the turn on a provider error that retrying cannot fix, and starts the queued turn', async () => {
    const h = setup();
    await h.submit('t1', 'fail with auth');
    await h.submit('t2', 'hello');
    expect(await h.run('t1')).toBe('failed');
    const failed = h.events().find((e) => e.type === 'TurnFailed');
    expect(failed?.data).toEqual(expect.objectContaining({ code: 'PROVIDER_AUTH', retryable: false }));
    const i = h.events().indexOf(failed as HubEvent as never);
    expect(h.events()[i + 1]).toEqual(expect.objectContaining({ type: 'TurnStarted', data: { turnId: 't2' } }));
    expect(h.scheduled).toContainEqual({ turnId: 't2', key: 'start' });
  });

  it('leaves a retryable provider error to the job retry, and fails the turn on the last attempt', async () => {
    const h = setup();
    await h.submit('t1', 'fail with rate_limit');
    await expect(h.run('t1')).rejects.toBeInstanceOf(ProviderError);
    expect(h.types('t1')).not.toContain('TurnFailed');
    expect(await h.run('t1', undefined, true)).toBe('failed');
    expect(h.events().find((e) => e.type === 'TurnFailed')?.data).toEqual(expect.objectContaining({ code: 'PROVIDER_RATE_LIMIT', retryable: true }));
  });

  it('stops when the turn is cancelled under it (the append conflicts, the log says cancelled)', async () => {
    const h = setup();
    await h.submit('t1', 'long answer 200');
    let appends = 0;
    h.log.beforeAppend = async () => {
      if (++appends === 4) {
        h.log.beforeAppend = undefined;
        await h.send({ type: 'CancelTurn', sessionId: SESSION, reason: 'user' });
      }
    };
    expect(await h.run('t1')).toBe('stopped');
    const types = h.types('t1');
    expect(types).toContain('TurnCancelled');
    expect(types).not.toContain('TurnCompleted');
    expect(types.slice(types.indexOf('TurnCancelled') + 1)).toEqual([]);
    expect(h.cancels).toEqual(['t1']);
    // The cancel's command told what follows a turn (OpenEnv scoring) that it ended, with its end.
    expect(h.ended).toEqual([{ turnId: 't1', types: expect.arrayContaining(['TurnRequested', 'TurnCancelled']) }]);
  });

  it('tells what follows a turn that it ended, completed or failed, with the session including its end', async () => {
    const h = setup();
    await h.submit('t1', 'read notes.txt');
    await h.submit('t2', 'fail with auth');
    expect(await h.run('t1')).toBe('completed');
    expect(await h.run('t2', undefined, true)).toBe('failed');
    expect(h.ended.map((e) => [e.turnId, e.types.at(-1)])).toEqual([
      ['t1', 'TurnCompleted'],
      ['t2', 'TurnFailed'],
    ]);
  });
});
