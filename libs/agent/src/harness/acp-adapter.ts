import { Readable, Writable } from 'node:stream';
import type { HarnessAdapter, HarnessOutput, HarnessPermissionAnswer, HarnessSink, HarnessToolStatus, HarnessTurn, HarnessTurnResult } from './adapter';
import { within } from './adapter';
import { loadAcpSdk } from './acp-sdk';
import type { HarnessChild } from './harness-child';
import { HarnessError } from './harness-errors';
import { ProcessAdapter } from './process-adapter';
import type { McpServerSpec } from '../mcp/mcp-servers';

type Acp = typeof import('@agentclientprotocol/sdk');
type SessionNotification = import('@agentclientprotocol/sdk').SessionNotification;
type PermissionRequest = import('@agentclientprotocol/sdk').RequestPermissionRequest;
type PermissionResponse = import('@agentclientprotocol/sdk').RequestPermissionResponse;
type ContentBlock = import('@agentclientprotocol/sdk').ContentBlock;
type AcpMcpServer = import('@agentclientprotocol/sdk').McpServer;
type Connection = ReturnType<ReturnType<Acp['client']>['connect']>;

const EXIT_SETTLE_MS = 1000;

/**
 * An ACP agent over its stdio (RFC 005 adapter for `kind: "acp"`), driven with the official
 * SDK's client side: `initialize` + `session/new` at start, `session/prompt` per turn with
 * `session/update` streamed to the sink, `session/request_permission` answered through the
 * hub's approvals, `session/cancel` on cancel. One ACP session per process: the agent keeps the
 * conversation between turns. The environment's MCP servers (`spec.mcp_servers`) go to
 * `session/new` in ACP's form; http ones only if the agent declares `mcpCapabilities.http`.
 */
export class AcpHarnessAdapter extends ProcessAdapter implements HarnessAdapter {
  private conn?: Connection;
  private acpSessionId?: string;
  private sink?: HarnessSink;
  private leftOut: { name: string; reason: string }[] = [];
  private injects = false;

  get mcpLeftOut(): readonly { name: string; reason: string }[] {
    return this.leftOut;
  }

  get takesSteer(): boolean {
    return this.injects;
  }

  /** Harn's live input: the agent takes the message into its running prompt turn. */
  async steer(text: string): Promise<void> {
    const { conn, acpSessionId } = this.ready();
    await conn.agent.request('session/inject', { sessionId: acpSessionId, mode: 'steer', content: [{ type: 'text', text }] });
  }

  async start(): Promise<void> {
    const sdk = loadAcpSdk();
    const child = this.spawnChild();
    const { stdin, stdout } = child.process;
    if (!stdin || !stdout) throw new HarnessError('HARNESS_START_FAILED', 'harness process has no stdio pipes');
    const stream = sdk.ndJsonStream(Writable.toWeb(stdin) as WritableStream<Uint8Array>, Readable.toWeb(stdout) as ReadableStream<Uint8Array>);
    const app = sdk
      .client({ name: 'harness-hub' })
      .onNotification('session/update', ({ params }) => this.onUpdate(params))
      .onRequest('session/request_permission', ({ params }) => this.onPermission(params));
    const conn = (this.conn = app.connect(stream));
    const handshake = async () => {
      await child.spawned();
      const init = await conn.agent.request('initialize', {
        protocolVersion: sdk.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'harness-hub', version: '0.1.0' },
      });
      const { servers, leftOut } = acpMcpServers(this.spec.mcp_servers ?? [], init.agentCapabilities?.mcpCapabilities?.http === true);
      this.leftOut = leftOut;
      this.injects = harnExtensionMethods(init).includes('session/inject');
      const session = await conn.agent.request('session/new', { cwd: child.cwd, mcpServers: servers });
      this.acpSessionId = session.sessionId;
    };
    const ms = this.spec.startup_timeout_s * 1000;
    try {
      await within(
        Promise.race([handshake(), child.crashed('during startup')]),
        ms,
        () =>
          new HarnessError(
            'HARNESS_START_FAILED',
            `harness ${this.spec.name} did not finish the ACP handshake (initialize, session/new) within startup_timeout_s=${this.spec.startup_timeout_s}`,
          ),
      );
    } catch (e) {
      await this.stop();
      if (e instanceof HarnessError) throw new HarnessError('HARNESS_START_FAILED', e.message);
      throw new HarnessError('HARNESS_START_FAILED', `harness ${this.spec.name} refused the ACP handshake: ${(e as Error).message}`);
    }
  }

  async sendMessageStreaming(turn: HarnessTurn, sink: HarnessSink): Promise<HarnessTurnResult> {
    const { conn, child, acpSessionId } = this.ready();
    this.sink = sink;
    try {
      const prompt = promptBlocks(turn);
      const res = await Promise.race([conn.agent.request('session/prompt', { sessionId: acpSessionId, prompt }), child.crashed('during the turn')]);
      const stopReason =
        res.stopReason === 'end_turn' || res.stopReason === 'cancelled' || res.stopReason === 'max_tokens' || res.stopReason === 'refusal'
          ? res.stopReason
          : 'other';
      return { stopReason, done: signalsDone(res) };
    } catch (e) {
      if (this.stopping) throw this.stoppedDuringTurn();
      if (e instanceof HarnessError) throw e;
      // A closed stdout can reject the prompt just before the exit is reported: give it a moment.
      const gone = await Promise.race([child.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), EXIT_SETTLE_MS))]);
      if (gone) return child.crashed('during the turn');
      throw new HarnessError('HARNESS_PROTOCOL', `harness ${this.spec.name} failed the prompt: ${(e as Error).message}`);
    } finally {
      this.sink = undefined;
    }
  }

  async cancel(): Promise<void> {
    if (!this.conn || !this.acpSessionId || !this.isAlive()) return;
    await this.conn.agent.notify('session/cancel', { sessionId: this.acpSessionId });
  }

  override async stop(): Promise<void> {
    this.stopping = true;
    this.conn?.close();
    await super.stop();
  }

  private ready(): { conn: Connection; child: HarnessChild; acpSessionId: string } {
    if (!this.conn || !this.child || !this.acpSessionId) throw new HarnessError('HARNESS_START_FAILED', `harness ${this.spec.name} was not started`);
    if (!this.child.alive) throw new HarnessError('HARNESS_CRASHED', `harness ${this.spec.name} is no longer running`);
    return { conn: this.conn, child: this.child, acpSessionId: this.acpSessionId };
  }

  private onUpdate(n: SessionNotification): void {
    if (n.sessionId !== this.acpSessionId || !this.sink) return;
    const out = outputOf(n.update);
    if (out) this.sink.emit(out);
  }

  private async onPermission(p: PermissionRequest): Promise<PermissionResponse> {
    if (!this.sink) return { outcome: { outcome: 'cancelled' } };
    const tc = p.toolCall;
    const answer = await this.sink.askPermission({
      toolCallId: tc.toolCallId,
      toolName: tc.name ?? tc.title ?? tc.kind ?? 'tool',
      input: tc.rawInput ?? null,
      reason: `the ${this.spec.name} harness asks to run ${tc.title ?? tc.name ?? tc.toolCallId}`,
    });
    return permissionAnswer(p, answer);
  }
}

/**
 * The hub's MCP servers in ACP's `McpServer` form (stdio: command + args + env as name/value
 * pairs; http: url, no headers). ACP agents must take stdio servers; http ones only when they
 * declare `mcpCapabilities.http`, so without it those are left out (and said so).
 */
export function acpMcpServers(
  servers: readonly McpServerSpec[],
  httpSupported: boolean,
): { servers: AcpMcpServer[]; leftOut: { name: string; reason: string }[] } {
  const out: AcpMcpServer[] = [];
  const leftOut: { name: string; reason: string }[] = [];
  for (const s of servers) {
    if (s.transport === 'stdio') {
      const [command, ...args] = s.command;
      out.push({ name: s.name, command: command as string, args, env: Object.entries(s.env).map(([name, value]) => ({ name, value })) });
    } else if (httpSupported) {
      out.push({ type: 'http', name: s.name, url: s.url, headers: [] });
    } else {
      leftOut.push({ name: s.name, reason: 'the agent does not declare agentCapabilities.mcpCapabilities.http, so it cannot take an http MCP server' });
    }
  }
  return { servers: out, leftOut };
}

/** The turn's prompt: earlier conversation first (a fresh process only), then the message. */
function promptBlocks(turn: HarnessTurn): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (turn.history.length) {
    const lines = turn.history.map((m) => `${m.role}: ${m.content}`);
    blocks.push({ type: 'text', text: `Conversation so far:\n${lines.join('\n')}`, _meta: { 'hub/history': true } });
  }
  blocks.push({ type: 'text', text: turn.message });
  return blocks;
}

/** The option the agent offered that means the hub's decision; `cancelled` when none does. */
export function permissionAnswer(p: PermissionRequest, answer: HarnessPermissionAnswer): PermissionResponse {
  if (answer === 'cancelled') return { outcome: { outcome: 'cancelled' } };
  const kinds = answer === 'approved' ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  for (const kind of kinds) {
    const option = p.options.find((o) => o.kind === kind);
    if (option) return { outcome: { outcome: 'selected', optionId: option.optionId } };
  }
  return { outcome: { outcome: 'cancelled' } };
}

const textOf = (c: ContentBlock): string => (c.type === 'text' ? c.text : c.type === 'resource_link' ? c.uri : `[${c.type}]`);

function toolText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const parts = content.flatMap((c: { type?: string; content?: ContentBlock; path?: string }) =>
    c.type === 'content' && c.content ? [textOf(c.content)] : c.type === 'diff' ? [`diff ${c.path ?? ''}`] : [],
  );
  return parts.length ? parts.join('\n') : undefined;
}

const status = (s: unknown): HarnessToolStatus | undefined => (s === 'pending' || s === 'in_progress' || s === 'completed' || s === 'failed' ? s : undefined);
const rawOutput = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : typeof v === 'string' ? v : JSON.stringify(v));

/** One `session/update` as harness output; updates the hub does not record give null. */
export function outputOf(u: SessionNotification['update']): HarnessOutput | null {
  switch (u.sessionUpdate) {
    case 'agent_message_chunk':
      return { type: 'text', text: textOf(u.content) };
    case 'agent_thought_chunk':
      return { type: 'thought', text: textOf(u.content) };
    case 'tool_call':
      return {
        type: 'tool_call',
        id: u.toolCallId,
        name: u.name ?? u.title,
        input: u.rawInput ?? null,
        status: status(u.status),
        output: toolText(u.content) ?? rawOutput(u.rawOutput),
      };
    case 'tool_call_update':
      return {
        type: 'tool_update',
        id: u.toolCallId,
        name: u.name ?? u.title ?? undefined,
        input: u.rawInput,
        status: status(u.status),
        message: toolText(u.content),
        output: toolText(u.content) ?? rawOutput(u.rawOutput),
      };
    default:
      return null;
  }
}

/**
 * ACP has no "task complete" signal, so an agent says it in the prompt response's `_meta`:
 * `{"stopReason": "end_turn", "_meta": {"openenv": {"done": true}}}` (RFC 005 `done`).
 */
function signalsDone(res: { _meta?: unknown }): boolean {
  const meta = res._meta as { openenv?: { done?: unknown } } | null | undefined;
  return meta?.openenv?.done === true;
}

/** The Harn extension methods an ACP agent lists at `initialize` (`agentCapabilities._meta.harn.extensionMethods`). */
function harnExtensionMethods(init: { agentCapabilities?: { _meta?: unknown } | null }): string[] {
  const harn = (init.agentCapabilities?._meta as { harn?: { extensionMethods?: unknown } } | null | undefined)?.harn;
  return Array.isArray(harn?.extensionMethods) ? harn.extensionMethods.filter((m): m is string => typeof m === 'string') : [];
}
