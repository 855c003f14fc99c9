import { createInterface } from 'node:readline/promises';
import WebSocket from 'ws';
import { applyOps, type HarnessState } from '@hub/domain';

export interface ChatOptions {
  hubUrl: string;
  apiKey: string;
  sessionId: string;
  prompt: string;
  /** What to answer approvals with when there is no terminal to ask: 'ask' prompts on a TTY. */
  approvals: 'ask' | 'approve' | 'deny';
}

type Frame =
  | { type: 'state'; state: HarnessState; cursor: number }
  | { type: 'delta'; operations: Parameters<typeof applyOps>[1]; cursor: number }
  | { type: 'error'; message: string; code?: string };

/**
 * `hub chat`: sends one prompt over the Harness transport WebSocket and prints the answer as
 * it streams, answering approvals on the way. A small real client of the protocol, for demos.
 */
export async function chat(opts: ChatOptions): Promise<number> {
  const url = new URL(opts.hubUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = '/v1/transport';
  url.searchParams.set('session', opts.sessionId);
  const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${opts.apiKey}` } });
  let state: HarnessState | null = null;
  let printed = 0;
  let submitted = false;
  /** Messages that were there before our prompt are history: not printed, not answered. */
  let firstNew = Infinity;
  let sawRunning = false;
  const answered = new Set<string>();
  return new Promise<number>((resolve) => {
    ws.on('unexpected-response', (_req, res) => {
      process.stderr.write(`hub refused the connection: HTTP ${res.statusCode}\n`);
      resolve(3);
    });
    ws.on('error', (e) => {
      process.stderr.write(`cannot reach the hub at ${opts.hubUrl}: ${e.message}\n`);
      resolve(3);
    });
    ws.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as Frame;
      if (frame.type === 'error') return process.stderr.write(`error: ${frame.code ?? ''} ${frame.message}\n`);
      state = frame.type === 'state' ? frame.state : applyOps(state as HarnessState, frame.operations);
      if (!submitted) {
        submitted = true;
        firstNew = state.messages.length;
        ws.send(JSON.stringify({ type: 'commands', commands: [{ type: 'submit', prompt: opts.prompt }] }));
        return;
      }
      const mine = state.messages.slice(firstNew).filter((m) => m.role === 'assistant').pop();
      printed = render(mine, printed);
      void answerApprovals(ws, mine, answered, opts.approvals);
      if (state.status === 'running') sawRunning = true;
      if (sawRunning && state.status !== 'running') {
        process.stdout.write('\n');
        ws.close();
        resolve(state.status === 'error' ? 1 : 0);
      }
    });
  });
}

type Message = HarnessState['messages'][number];

function render(msg: Message | undefined, printed: number): number {
  if (!msg) return printed;
  if (msg.content.length > printed) process.stdout.write(msg.content.slice(printed));
  return msg.content.length;
}

async function answerApprovals(ws: WebSocket, msg: Message | undefined, answered: Set<string>, mode: ChatOptions['approvals']): Promise<void> {
  for (const tc of msg?.toolCalls ?? []) {
    const a = tc.approval;
    if (!a || a.status !== 'pending' || answered.has(a.id)) continue;
    answered.add(a.id);
    let approve = mode === 'approve';
    if (mode === 'ask') {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      approve = /^y/i.test(await rl.question(`\n[approval] ${tc.name} (${a.riskTier} risk): ${a.reason}. Allow? [y/N] `));
      rl.close();
    }
    ws.send(JSON.stringify({ type: 'commands', commands: [{ type: approve ? 'approve' : 'deny', approvalId: a.id }] }));
  }
}
