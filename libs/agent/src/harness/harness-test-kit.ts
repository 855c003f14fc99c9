import { sessionStreamId, type CommandMetadata, type HubCommand, type HubEvent, type Recorded } from '@hub/domain';
import { CommandHandler } from '@hub/sessions';
import { InMemoryEventLog, TEST_HARNESS_BASE_ENV, testCommandRule, testHarnessCommand as script } from '@hub/testing';
import type { McpAllowlists } from '../mcp/mcp-pool';
import { MCP_CONTEXT_KEY, type McpServerSpec } from '../mcp/mcp-servers';
import { RunningTurns } from '../runtime/ports';
import { ExternalTurnRunner, type ExternalRunTurnInput } from './external-turn-runner';
import { HarnessProcesses, defaultAdapterFactory } from './harness-processes';
import { ExternalHarnessSpec, HARNESS_CONTEXT_KEY } from './harness-spec';

// What the external-harness int specs share (harness.int.spec.ts, harness-mcp.int.spec.ts): a
// session on an in-memory log, the command handler and the external turn runner around real
// test agents (tools/test-harnesses), and small waits.
export const TENANT = '11111111-1111-4111-8111-111111111111';
export const BASE_ENV = TEST_HARNESS_BASE_ENV;
export const spec = (kind: 'acp' | 'command', over: Partial<ExternalHarnessSpec> = {}): ExternalHarnessSpec =>
  ExternalHarnessSpec.parse({
    kind,
    name: `${kind}-test`,
    command: script(kind === 'acp' ? 'acp-test-agent.ts' : 'command-test-agent.ts'),
    env_vars: {},
    ...over,
  });

export const alive = (pid: number | undefined) => {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export async function until(what: string, pred: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface McpSetup {
  servers: McpServerSpec[];
  allow: McpAllowlists;
}

export function setup(harness: ExternalHarnessSpec, session = `s-${Math.random().toString(36).slice(2)}`, mcp?: McpSetup) {
  const log = new InMemoryEventLog();
  const running = new RunningTurns();
  const followUps = {
    scheduleTurn: async () => undefined,
    scheduleApprovalExpiry: async () => undefined,
    signalCancel: async (tenantId: string, turnId: string) => void running.cancel(tenantId, turnId),
  };
  const commands = new CommandHandler(log, followUps);
  const processes = new HarnessProcesses(defaultAdapterFactory({ baseEnv: BASE_ENV, killGraceMs: 1000 }));
  const runner = new ExternalTurnRunner({
    log,
    scheduler: followUps,
    running,
    processes,
    worker: { type: 'worker', id: 'w1' },
    allowlist: [testCommandRule(harness.command.slice(0, 4))],
    mcpAllowlists: mcp?.allow,
    warn: (msg) => void warnings.push(msg),
    approvalTtlMs: 0,
    flush: { maxChars: 64, maxDelayMs: 20 },
    pollMs: 50,
  });
  const warnings: string[] = [];
  let n = 0;
  const meta = (): CommandMetadata => ({
    commandId: `c${++n}`,
    tenantId: TENANT,
    now: '2026-01-01T00:00:00.000Z',
    correlationId: 'corr',
    actor: { type: 'api_key', id: 'k' },
    protocol: 'openenv',
  });
  const send = (c: HubCommand) => commands.handle(c, meta());
  const submit = (turnId: string, prompt: string) =>
    send({
      type: 'SubmitTurn',
      sessionId: session,
      turnId,
      prompt,
      context: { [HARNESS_CONTEXT_KEY]: harness, ...(mcp ? { [MCP_CONTEXT_KEY]: mcp.servers } : {}) },
      busyPolicy: 'enqueue',
    });
  const run = (turnId: string, reason: ExternalRunTurnInput['reason'] = 'start') =>
    runner.run({ tenantId: TENANT, sessionId: session, turnId, trace: { correlationId: 'corr' }, causationId: `job-${turnId}`, finalAttempt: false, reason });
  const events = () => log.all(TENANT, sessionStreamId(session)) as Recorded<HubEvent>[];
  const of = (turnId: string) => events().filter((e) => 'turnId' in e.data && (e.data as { turnId: string }).turnId === turnId);
  const end = (turnId: string) => of(turnId).find((e) => e.type === 'TurnCompleted' || e.type === 'TurnFailed' || e.type === 'TurnCancelled');
  const pid = () => (processes as unknown as { entries: Map<string, { adapter?: { pid?: number } }> }).entries.get(`${TENANT}\u0000${session}`)?.adapter?.pid;
  return { log, send, submit, run, events, of, end, processes, pid, session, warnings };
}

export const text = (e: Recorded<HubEvent> | undefined) => (e?.type === 'TurnCompleted' ? e.data.text : `not completed: ${JSON.stringify(e?.data)}`);
