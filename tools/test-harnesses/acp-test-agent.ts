// A deterministic ACP agent over stdio, built on the official SDK's agent side, for tests of
// the hub's wrapped-harness adapter (`harness.kind: "acp"`). Per prompt it:
//   - remembers what was said in its session (and reads a "Conversation so far:" block that the
//     hub sends to a fresh process), answering "turn N; you said X; earlier you said Y | Z";
//   - streams a thought, then an `echo` tool_call with an in_progress and a completed update,
//     then its answer in several agent_message_chunk updates;
//   - "write": reports a write_file tool_call and asks session/request_permission (allow_once /
//     reject_once), then reports the tool completed or failed and says which;
//   - "crash": streams some text, then exits with code 3 mid-turn;
//   - "hang": streams some text, then waits until session/cancel (answers stopReason cancelled);
//   - `use <tool> with <json>` (or `use <server>/<tool> with <json>`): a real MCP client of the
//     servers it got at session/new (see mcp-client-of-agent.ts): calls the tool, reports a
//     tool_call and a completed (or failed) tool_call_update with the result, answers the result;
//   - "which mcp servers": answers `mcp servers: <name>, ...` (or `mcp servers: none`);
//   - "done": answers as usual and signals the task complete (`_meta.openenv.done`, RFC 005 `done`);
//   - "wait for a steer": streams "waiting", then waits (up to 15 s, `--steer-wait-ms=N`) for a Harn
//     `session/inject` steer into this running prompt, and answers `you steered: <text>` (it lists
//     `session/inject` in `_meta.harn.extensionMethods`; `--no-inject` leaves it out).
// Flags: `--no-handshake` never answers `initialize` (startup timeout tests); `--no-http-mcp`
// does not declare mcpCapabilities.http (the client must then send no http server).
import { Readable, Writable } from 'node:stream';
import { agent, ndJsonStream, PROTOCOL_VERSION, type AgentContext, type McpServer, type SessionUpdate } from '@agentclientprotocol/sdk';
import { AgentMcpClients, parseUse } from './mcp-client-of-agent';

const noHandshake = process.argv.includes('--no-handshake');
const httpMcp = !process.argv.includes('--no-http-mcp');
const takesInject = !process.argv.includes('--no-inject');
const steerWaitMs = Number(process.argv.find((a) => a.startsWith('--steer-wait-ms='))?.split('=')[1] ?? 15_000);
const sessions = new Map<string, { said: string[]; mcp: AgentMcpClients; cancel?: () => void; steered: string[]; onSteer?: () => void }>();
let nextSession = 1;

const send = (client: AgentContext, sessionId: string, update: SessionUpdate) => client.notify('session/update', { sessionId, update });
const chunk = (text: string): SessionUpdate => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });

/** The prompt's message (last text block) and any earlier conversation the hub replayed. */
function readPrompt(blocks: { type: string; text?: string }[]): { message: string; replayed: string[] } {
  const texts = blocks.flatMap((b) => (b.type === 'text' && b.text !== undefined ? [b.text] : []));
  const message = texts.at(-1) ?? '';
  const replayed = texts
    .slice(0, -1)
    .flatMap((t) => t.split('\n'))
    .flatMap((line) => (line.startsWith('user: ') ? [line.slice('user: '.length)] : []));
  return { message, replayed };
}

async function writeTool(client: AgentContext, sessionId: string, n: number, message: string): Promise<string> {
  const toolCallId = `write-${n}`;
  await send(client, sessionId, {
    sessionUpdate: 'tool_call',
    toolCallId,
    title: 'write_file',
    kind: 'edit',
    status: 'pending',
    rawInput: { path: 'notes.txt', content: message },
  });
  const answer = await client.request('session/request_permission', {
    sessionId,
    toolCall: { toolCallId, title: 'write_file', kind: 'edit', rawInput: { path: 'notes.txt', content: message } },
    options: [
      { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ],
  });
  const allowed = answer.outcome.outcome === 'selected' && answer.outcome.optionId === 'allow';
  const text = allowed ? 'wrote notes.txt' : 'permission denied';
  await send(client, sessionId, {
    sessionUpdate: 'tool_call_update',
    toolCallId,
    status: allowed ? 'completed' : 'failed',
    content: [{ type: 'content', content: { type: 'text', text } }],
  });
  return allowed ? 'permission granted: wrote notes.txt; ' : 'permission denied: nothing written; ';
}

/** `use <tool> with <json>`: calls the tool on an MCP server of the session and answers its result. */
async function useTool(
  client: AgentContext,
  sessionId: string,
  mcp: AgentMcpClients,
  n: number,
  use: NonNullable<ReturnType<typeof parseUse>>,
): Promise<string> {
  const toolCallId = `mcp-${n}`;
  await send(client, sessionId, { sessionUpdate: 'tool_call', toolCallId, title: use.tool, kind: 'other', status: 'in_progress', rawInput: use.args });
  const result = await mcp.call(use.server, use.tool, use.args).catch((e: Error) => ({ ok: false, text: e.message }));
  await send(client, sessionId, {
    sessionUpdate: 'tool_call_update',
    toolCallId,
    status: result.ok ? 'completed' : 'failed',
    content: [{ type: 'content', content: { type: 'text', text: result.text } }],
  });
  return result.ok ? result.text : `could not use ${use.tool}: ${result.text}`;
}

const app = agent({ name: 'acp-test-agent' })
  .onRequest('initialize', () =>
    noHandshake
      ? new Promise<never>(() => undefined)
      : {
          protocolVersion: PROTOCOL_VERSION,
          agentCapabilities: { mcpCapabilities: { http: httpMcp }, _meta: { harn: { extensionMethods: takesInject ? ['session/inject'] : [] } } },
          agentInfo: { name: 'acp-test-agent', version: '1.0.0' },
        },
  )
  .onRequest('session/new', ({ params }) => {
    const sessionId = `acp-test-${nextSession++}`;
    sessions.set(sessionId, { said: [], mcp: new AgentMcpClients(params.mcpServers as McpServer[]), steered: [] });
    return { sessionId };
  })
  .onNotification('session/cancel', ({ params }) => sessions.get(params.sessionId)?.cancel?.())
  // Harn live input: a steered message joins the running prompt turn.
  .onRequest(
    'session/inject',
    (raw: unknown) => raw as { sessionId: string; content: { type: string; text?: string }[] },
    ({ params }) => {
      const s = sessions.get(params.sessionId);
      if (!s || !takesInject) throw new Error(`cannot inject into ${params.sessionId}`);
      s.steered.push(params.content.map((b) => b.text ?? '').join(''));
      s.onSteer?.();
      return { status: 'accepted', messageId: `steer-${s.steered.length}` };
    },
  )
  .onRequest('session/prompt', async ({ params, client }) => {
    const s = sessions.get(params.sessionId);
    if (!s) throw new Error(`unknown session ${params.sessionId}`);
    const { message, replayed } = readPrompt(params.prompt as { type: string; text?: string }[]);
    if (s.said.length === 0 && replayed.length) s.said.push(...replayed);
    const n = s.said.length + 1;
    const sid = params.sessionId;
    await send(client, sid, { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `thinking about turn ${n}` } });
    if (message.includes('crash')) {
      await send(client, sid, chunk('about to crash'));
      setTimeout(() => process.exit(3), 50);
      return new Promise<never>(() => undefined);
    }
    const use = parseUse(message);
    if (use || message.includes('which mcp servers')) {
      const answer = use ? await useTool(client, sid, s.mcp, n, use) : `mcp servers: ${s.mcp.names.join(', ') || 'none'}`;
      await send(client, sid, chunk(answer));
      s.said.push(message);
      return { stopReason: 'end_turn' as const };
    }
    if (message.includes('wait for a steer')) {
      await send(client, sid, chunk('waiting; '));
      if (s.steered.length === 0) await new Promise<void>((r) => ((s.onSteer = r), setTimeout(r, steerWaitMs)));
      s.onSteer = undefined;
      s.said.push(message);
      await send(client, sid, chunk(s.steered.length ? `you steered: ${s.steered.splice(0).join(' | ')}` : 'no steer came'));
      return { stopReason: 'end_turn' as const };
    }
    if (message.includes('hang')) {
      await send(client, sid, chunk('hanging until cancelled'));
      await new Promise<void>((r) => (s.cancel = r));
      return { stopReason: 'cancelled' as const };
    }
    await send(client, sid, {
      sessionUpdate: 'tool_call',
      toolCallId: `echo-${n}`,
      title: 'echo',
      kind: 'other',
      status: 'pending',
      rawInput: { text: message },
    });
    await send(client, sid, {
      sessionUpdate: 'tool_call_update',
      toolCallId: `echo-${n}`,
      status: 'in_progress',
      content: [{ type: 'content', content: { type: 'text', text: 'echoing' } }],
    });
    await send(client, sid, {
      sessionUpdate: 'tool_call_update',
      toolCallId: `echo-${n}`,
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: `echo: ${message}` } }],
    });
    const wrote = message.includes('write') ? await writeTool(client, sid, n, message) : '';
    const earlier = s.said.length ? `; earlier you said ${s.said.join(' | ')}` : '';
    for (const part of [`${wrote}turn ${n}; `, `you said ${message}`, earlier]) if (part) await send(client, sid, chunk(part));
    s.said.push(message);
    return { stopReason: 'end_turn' as const, ...(message.includes('done') ? { _meta: { openenv: { done: true } } } : {}) };
  });

app.connect(ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
// The client closing stdin ends the session, SIGTERM the process: either way the MCP clients are
// closed first (their server processes stopped), then exit rather than linger.
let exiting = false;
const shutdown = () => {
  if (exiting) return;
  exiting = true;
  const closing = Promise.all([...sessions.values()].map((s) => s.mcp.closeAll()));
  void Promise.race([closing, new Promise((r) => setTimeout(r, 3000))]).finally(() => process.exit(0));
};
process.stdin.on('end', shutdown);
process.on('SIGTERM', shutdown);
