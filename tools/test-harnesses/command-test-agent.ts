// A deterministic "Zene-style command provider" for tests of the hub's `harness.kind: "command"`
// adapter: one JSON line in per turn, one JSON line out (format: libs/agent/src/harness/README.md).
// It keeps its own conversation ("turn N; you said X; earlier you said Y | Z"), seeds it from
// `history` when it is a fresh process for an older session, reports an `echo` tool call, and
// on a message containing "crash" writes a partial line to stderr and exits with code 3.
// "hang" never answers (turn timeout tests); "error" answers {"error":{...}}; "which mcp servers"
// answers the names of the turn line's `mcp_servers` ("mcp servers: a (stdio), b (http)" or "none").
// Its usage is counted in words: input = the message's, output = the answer's.
import { createInterface } from 'node:readline';

const said: string[] = [];
const out = (v: unknown) => process.stdout.write(`${JSON.stringify(v)}\n`);

createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  const msg = JSON.parse(line) as {
    type: string;
    turn: number;
    message: string;
    history?: { role: string; content: string }[];
    mcp_servers?: { name: string; transport: string }[];
  };
  if (msg.type !== 'turn') return;
  if (said.length === 0 && msg.history?.length) said.push(...msg.history.filter((h) => h.role === 'user').map((h) => h.content));
  const n = said.length + 1;
  if (msg.message.includes('crash')) {
    process.stderr.write(`command-test-agent: crashing on turn ${n}\n`);
    setTimeout(() => process.exit(3), 20);
    return;
  }
  if (msg.message.includes('hang')) return;
  if (msg.message.includes('error')) return out({ turn: msg.turn, error: { message: `cannot do "${msg.message}"` } });
  if (msg.message.includes('which mcp servers')) {
    said.push(msg.message);
    const servers = (msg.mcp_servers ?? []).map((s) => `${s.name} (${s.transport})`);
    return out({ turn: msg.turn, text: `mcp servers: ${servers.join(', ') || 'none'}` });
  }
  const earlier = said.length ? `; earlier you said ${said.join(' | ')}` : '';
  said.push(msg.message);
  const text = `turn ${n}; you said ${msg.message}${earlier}`;
  const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
  out({
    turn: msg.turn,
    text,
    thought: `thinking about turn ${n}`,
    tool_calls: [{ id: `echo-${n}`, name: 'echo', input: { text: msg.message }, output: `echo: ${msg.message}`, status: 'complete' }],
    done: msg.message.includes('done'),
    usage: { input_tokens: words(msg.message), output_tokens: words(text) },
  });
});
process.stdin.on('end', () => process.exit(0));
