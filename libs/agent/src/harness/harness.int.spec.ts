import { testCommandRule, testHarnessCommand as script } from '@hub/testing';
import { RunningTurns } from '../runtime/ports';
import { AcpHarnessAdapter } from './acp-adapter';
import { ExternalTurnRunner } from './external-turn-runner';
import { HarnessProcesses, defaultAdapterFactory } from './harness-processes';
import { HARNESS_CONTEXT_KEY, type ExternalHarnessSpec } from './harness-spec';
import { BASE_ENV, TENANT, alive, setup, spec, text, until } from './harness-test-kit';

// The external harness adapters against the real test agents in tools/test-harnesses (an ACP
// agent on the official SDK, and a JSON-line command provider), run as real processes: the log
// they produce, context kept across turns, approvals answered through the log, crashes, the
// startup and turn timeouts, cancel, idle reaping and that no process outlives its stop. The
// environment's MCP servers reaching the harness are in harness-mcp.int.spec.ts.

jest.setTimeout(90_000);

describe('ACP harness (tools/test-harnesses/acp-test-agent.ts over the official SDK)', () => {
  const h = setup(spec('acp'));
  afterAll(() => h.processes.stopAll());

  it('maps a turn onto the canonical events and keeps the conversation in one process across turns', async () => {
    await h.submit('t1', 'hello');
    expect(await h.run('t1')).toBe('completed');
    expect(text(h.end('t1'))).toBe('turn 1; you said hello');
    const types = h
      .of('t1')
      .map((e) => e.type)
      .filter((t) => t !== 'TextDelta' && t !== 'ThoughtDelta');
    expect(types).toEqual([
      'TurnRequested',
      'TurnStarted',
      'MessageStarted',
      'ModelCallStarted',
      'ModelCallCompleted',
      'ToolCallStarted',
      'ToolCallUpdated',
      'ToolCallCompleted',
      'ModelCallStarted',
      'ModelCallCompleted',
      'MessageCompleted',
      'TurnCompleted',
    ]);
    const started = h.of('t1').find((e) => e.type === 'ModelCallStarted');
    expect(started?.data).toMatchObject({ provider: 'harness:acp', model: 'acp-test' });
    expect(h.of('t1').find((e) => e.type === 'ToolCallStarted')?.data).toMatchObject({
      name: 'echo',
      executor: 'harness:acp:acp-test',
      input: { text: 'hello' },
    });
    expect(h.of('t1').find((e) => e.type === 'ToolCallCompleted')?.data).toMatchObject({ status: 'complete', output: 'echo: hello' });
    expect(
      h
        .of('t1')
        .filter((e) => e.type === 'ThoughtDelta')
        .map((e) => (e.data as { text: string }).text)
        .join(''),
    ).toBe('thinking about turn 1');
    const first = h.pid();

    await h.submit('t2', 'again');
    expect(await h.run('t2')).toBe('completed');
    expect(text(h.end('t2'))).toBe('turn 2; you said again; earlier you said hello');
    expect(h.pid()).toBe(first);
  });

  it('turns session/request_permission into ApprovalRequested and answers with the decision from the log', async () => {
    await h.submit('t3', 'please write this down');
    const job = h.run('t3');
    await until('the approval request', () => h.of('t3').some((e) => e.type === 'ApprovalRequested'));
    const asked = h.of('t3').find((e) => e.type === 'ApprovalRequested');
    if (asked?.type !== 'ApprovalRequested') throw new Error('no approval');
    expect(asked.data).toMatchObject({ toolName: 'write_file', input: { path: 'notes.txt' } });
    // The resume job an approval schedules is a no-op: the holding job answers the harness.
    expect(await h.run('t3', 'resume')).toBe('stopped');
    expect(
      await h.send({ type: 'ResolveApproval', sessionId: h.session, approvalId: asked.data.approvalId, decision: 'approved', reason: null }),
    ).toMatchObject({ ok: true });
    expect(await job).toBe('completed');
    expect(text(h.end('t3'))).toBe('permission granted: wrote notes.txt; turn 3; you said please write this down; earlier you said hello | again');
    const write = h.of('t3').find((e) => e.type === 'ToolCallCompleted' && (e.data as { toolCallId: string }).toolCallId === asked.data.toolCallId);
    expect(write?.data).toMatchObject({ status: 'complete', output: 'wrote notes.txt' });
  });

  it('a denied permission reaches the agent as reject_once', async () => {
    await h.submit('t4', 'write again');
    const job = h.run('t4');
    await until('the approval request', () => h.of('t4').some((e) => e.type === 'ApprovalRequested'));
    const asked = h.of('t4').find((e) => e.type === 'ApprovalRequested');
    await h.send({
      type: 'ResolveApproval',
      sessionId: h.session,
      approvalId: (asked?.data as { approvalId: string }).approvalId,
      decision: 'denied',
      reason: 'no',
    });
    expect(await job).toBe('completed');
    expect(text(h.end('t4'))).toMatch(/^permission denied: nothing written; turn 4;/);
  });

  it('a cancel reaches the agent as session/cancel; the process stays for the next turn', async () => {
    await h.submit('t5', 'hang on');
    const job = h.run('t5');
    await until('text', () => h.of('t5').some((e) => e.type === 'TextDelta'));
    const pid = h.pid();
    await h.send({ type: 'CancelTurn', sessionId: h.session, turnId: 't5', reason: 'user' });
    expect(await job).toBe('stopped');
    expect(h.end('t5')?.type).toBe('TurnCancelled');
    expect(h.pid()).toBe(pid);
    expect(alive(pid)).toBe(true);
  });

  it('a crash mid-turn fails the turn with the exit code, leaves no process, and the next turn gets the conversation replayed', async () => {
    const pid = h.pid();
    await h.submit('t6', 'now crash');
    expect(await h.run('t6')).toBe('failed');
    const failed = h.end('t6');
    expect(failed?.type).toBe('TurnFailed');
    expect(failed?.data).toMatchObject({ code: 'HARNESS_CRASHED' });
    expect((failed?.data as { message: string }).message).toMatch(/exited with code 3 during the turn/);
    expect(
      h
        .of('t6')
        .filter((e) => e.type === 'TextDelta')
        .map((e) => (e.data as { text: string }).text)
        .join(''),
    ).toBe('about to crash');
    await until('the crashed process to be gone', () => !alive(pid), 5000);

    await h.submit('t7', 'are you back');
    expect(await h.run('t7')).toBe('completed');
    expect(h.pid()).not.toBe(pid);
    // Completed turns only: the fresh process learns them from the history the hub sends.
    expect(text(h.end('t7'))).toBe('turn 5; you said are you back; earlier you said hello | again | please write this down | write again');
  });

  it('a turn that began in a process this worker does not hold fails with HARNESS_LOST', async () => {
    const other = setup(spec('acp'));
    await other.submit('x1', 'hello');
    const first = other.run('x1');
    await until('the turn to begin', () => other.of('x1').some((e) => e.type === 'MessageStarted'));
    // A second runner (another worker) takes the same turn's job: it cannot continue it.
    const lost = new ExternalTurnRunner({
      log: other.log,
      scheduler: { scheduleTurn: async () => undefined, scheduleApprovalExpiry: async () => undefined },
      running: new RunningTurns(),
      processes: new HarnessProcesses(defaultAdapterFactory({ baseEnv: BASE_ENV })),
      worker: { type: 'worker', id: 'w2' },
      allowlist: [testCommandRule(spec('acp').command)],
      approvalTtlMs: 0,
      flush: { maxChars: 64, maxDelayMs: 20 },
    });
    expect(
      await lost.run({
        tenantId: TENANT,
        sessionId: other.session,
        turnId: 'x1',
        trace: { correlationId: 'c' },
        causationId: 'retry',
        finalAttempt: false,
        reason: 'start',
      }),
    ).toBe('failed');
    expect(other.end('x1')?.data).toMatchObject({ code: 'HARNESS_LOST' });
    await first;
    await other.processes.stopAll();
  });
});

describe('command harness (tools/test-harnesses/command-test-agent.ts, one JSON line per turn)', () => {
  it('keeps context, reports tool calls, and fails a crash with the exit code and stderr', async () => {
    const h = setup(spec('command'));
    try {
      await h.submit('t1', 'hello');
      expect(await h.run('t1')).toBe('completed');
      expect(text(h.end('t1'))).toBe('turn 1; you said hello');
      // The provider's reported usage is the turn's (and its last model call's) usage.
      expect(h.end('t1')?.data).toMatchObject({ usage: { promptTokens: 1, completionTokens: 5, totalTokens: 6 } });
      expect(h.of('t1').find((e) => e.type === 'ToolCallStarted')?.data).toMatchObject({ name: 'echo', executor: 'harness:command:command-test' });
      await h.submit('t2', 'again');
      expect(await h.run('t2')).toBe('completed');
      expect(text(h.end('t2'))).toBe('turn 2; you said again; earlier you said hello');
      const pid = h.pid();
      await h.submit('t3', 'crash please');
      expect(await h.run('t3')).toBe('failed');
      expect(h.end('t3')?.data).toMatchObject({ code: 'HARNESS_CRASHED' });
      expect((h.end('t3')?.data as { message: string }).message).toMatch(/exited with code 3 during the turn; stderr: command-test-agent: crashing on turn 3/);
      await until('the crashed process to be gone', () => !alive(pid), 5000);
    } finally {
      await h.processes.stopAll();
    }
  });

  it('a steer queued while the ACP agent works goes into its running turn (Harn session/inject); without inject it waits', async () => {
    /** t1 waits for a steer, s1 is queued as one while it waits; t1 completes, then `check` reads the log. */
    const steerWhileWaiting = async (harness: ExternalHarnessSpec, check: (h: ReturnType<typeof setup>) => void) => {
      const h = setup(harness);
      try {
        await h.submit('t1', 'please wait for a steer');
        const job = h.run('t1');
        await until('the agent to wait', () => h.of('t1').some((e) => e.type === 'TextDelta'));
        await h.send({
          type: 'SubmitTurn',
          sessionId: h.session,
          turnId: 's1',
          prompt: 'use the blue one',
          context: { [HARNESS_CONTEXT_KEY]: harness, delivery: 'steer' },
          busyPolicy: 'enqueue',
        });
        expect(await job).toBe('completed');
        check(h);
      } finally {
        await h.processes.stopAll();
      }
    };
    await steerWhileWaiting(spec('acp'), (h) => {
      expect(text(h.end('t1'))).toBe('waiting; you steered: use the blue one');
      expect(h.of('t1').find((e) => e.type === 'UserMessageInjected')?.data).toMatchObject({ fromTurnId: 's1', text: 'use the blue one' });
      // Delivered into t1, the steer's own turn never starts.
      expect(h.of('s1').map((e) => e.type)).toEqual(['TurnRequested']);
    });
    await steerWhileWaiting(spec('acp', { command: [...script('acp-test-agent.ts'), '--no-inject', '--steer-wait-ms=1500'] }), (w) => {
      expect(text(w.end('t1'))).toBe('waiting; no steer came');
      expect(w.of('t1').some((e) => e.type === 'UserMessageInjected')).toBe(false);
      expect(w.of('s1').map((e) => e.type)).toEqual(['TurnRequested', 'TurnStarted']); // runs next, as its own turn
    });
  });

  it("time spent waiting for a person's approval does not count against session_timeout_s", async () => {
    const h = setup(spec('acp', { session_timeout_s: 2 }));
    try {
      await h.submit('t1', 'please write it');
      const job = h.run('t1');
      await until('the approval request', () => h.of('t1').some((e) => e.type === 'ApprovalRequested'));
      await new Promise((r) => setTimeout(r, 3000)); // longer than the whole budget
      const asked = h.of('t1').find((e) => e.type === 'ApprovalRequested');
      if (asked?.type !== 'ApprovalRequested') throw new Error('no approval');
      await h.send({ type: 'ResolveApproval', sessionId: h.session, approvalId: asked.data.approvalId, decision: 'approved', reason: null });
      expect(await job).toBe('completed');
      expect(text(h.end('t1'))).toMatch(/^permission granted: wrote notes.txt; turn 1/);
      // The harness's own time still counts: a hang fails within the budget.
      await h.submit('t2', 'hang on');
      expect(await h.run('t2')).toBe('failed');
      expect(h.end('t2')?.data).toMatchObject({ code: 'HARNESS_TIMEOUT' });
    } finally {
      await h.processes.stopAll();
    }
  });

  it('a turn past session_timeout_s fails with HARNESS_TIMEOUT and its process is killed', async () => {
    const h = setup(spec('command', { session_timeout_s: 2 }));
    await h.submit('t1', 'hang forever');
    const job = h.run('t1');
    await until('the process', () => h.pid() !== undefined);
    const pid = h.pid();
    expect(await job).toBe('failed');
    expect(h.end('t1')?.data).toMatchObject({ code: 'HARNESS_TIMEOUT' });
    expect(alive(pid)).toBe(false);
  });
});

describe('process lifecycle', () => {
  it('an ACP agent that never answers initialize fails the start within startup_timeout_s, and is killed', async () => {
    const adapter = new AcpHarnessAdapter(spec('acp', { command: [...script('acp-test-agent.ts'), '--no-handshake'], startup_timeout_s: 3 }), {
      baseEnv: BASE_ENV,
      killGraceMs: 500,
    });
    await expect(adapter.start()).rejects.toMatchObject({ code: 'HARNESS_START_FAILED', message: expect.stringMatching(/within startup_timeout_s=3/) });
    expect(adapter.pid).toBeDefined();
    expect(alive(adapter.pid)).toBe(false);
  });

  it('a command that is not a process at all fails the start with a clear message', async () => {
    const h = setup(spec('command', { command: ['/nonexistent/harness-binary'] }));
    await h.submit('t1', 'hello');
    expect(await h.run('t1')).toBe('failed');
    expect(h.end('t1')?.data).toMatchObject({ code: 'HARNESS_START_FAILED' });
  });

  it('reaps a process idle for session_timeout_s, and stopAll leaves no process behind', async () => {
    const processes = new HarnessProcesses(defaultAdapterFactory({ baseEnv: BASE_ENV, killGraceMs: 500 }));
    const idle = await processes.acquire(TENANT, 'idle', spec('command', { session_timeout_s: 1 }));
    const busy = await processes.acquire(TENANT, 'busy', spec('command', { session_timeout_s: 1 }));
    processes.release(TENANT, 'idle');
    await until('the idle process to be reaped', () => !processes.holds(TENANT, 'idle'), 10_000);
    await until('its pid to be gone', () => !alive(idle.adapter.pid), 5000);
    // A busy one (a turn runs on it) is not reaped however long it takes.
    expect(processes.holds(TENANT, 'busy')).toBe(true);
    await processes.stopAll();
    expect(alive(busy.adapter.pid)).toBe(false);
    expect(processes.size).toBe(0);
  });
});
