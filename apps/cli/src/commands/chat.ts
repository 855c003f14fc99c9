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

/** Exit codes of `hub chat`: 0 answered, 1 the turn failed, 3 no hub, 5 an approval waits and no one can answer it here. */
export const CHAT_EXIT = { ok: 0, failed: 1, unreachable: 3, approvalPending: 5 } as const;

/**
 * `hub chat`: sends one prompt over the Harness transport WebSocket and prints the answer as
 * it streams, answering approvals on the way. A small real client of the protocol, for demos.
 * Without a terminal and without `--approve`/`--deny` it cannot ask, so a pending approval ends
 * it (exit 5) with the approval's id and how to answer it, instead of waiting forever.
 */
export async function chat(opts: ChatOptions): Promise<number> {
  const url = new URL(opts.hubUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = '/v1/transport';
  url.searchParams.set('session', opts.sessionId);
  const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${opts.apiKey}` } });
  const canAsk = opts.approvals !== 'ask' || process.stdin.isTTY === true;
  let state: HarnessState | null = null;
  let printed = 0;
  let submitted = false;
  let saidQueued = false;
  let saidWaiting = false;
  /** Messages that were there before our prompt are history: not printed, not answered. */
  let firstNew = Infinity;
  let ourTurn: string | undefined;
  const answered = new Set<string>();
  return new Promise<number>((resolve) => {
    const finish = (code: number) => {
      ws.close();
      resolve(code);
    };
    ws.on('unexpected-response', (_req, res) => {
      process.stderr.write(`hub refused the connection: HTTP ${res.statusCode}\n`);
      resolve(CHAT_EXIT.unreachable);
    });
    ws.on('error', (e) => {
      process.stderr.write(`cannot reach the hub at ${opts.hubUrl}: ${e.message}\n`);
      resolve(CHAT_EXIT.unreachable);
    });
    ws.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as Frame;
      if (frame.type === 'error') return process.stderr.write(`error: ${frame.code ?? ''} ${frame.message}\n`);
      state = frame.type === 'state' ? frame.state : applyOps(state as HarnessState, frame.operations);
      if (!submitted) {
        submitted = true;
        firstNew = state.messages.length;
        ws.send(JSON.stringify({ type: 'commands', commands: [{ type: 'submit', prompt: opts.prompt }] }));
        // A turn already runs: ours is queued behind it (nothing may arrive for a long while).
        if (state.status === 'running') saidQueued = sayQueued(state.messages);
        return;
      }
      const mine = state.messages.slice(firstNew);
      if (!saidQueued && mine.length === 0 && state.status === 'running') saidQueued = sayQueued(state.messages.slice(0, firstNew));
      if (!saidWaiting && state.queued && mine.some((m) => m.turnId === state?.queued?.turnId)) saidWaiting = sayWaiting(state.queued.since);
      // Our turn is the one our prompt started; the first frame that shows it may already show it
      // ended (a watcher is handed everything that settled together as one delta).
      ourTurn ??= mine.find((m) => m.role === 'user' && m.content === opts.prompt)?.turnId;
      if (ourTurn === undefined) return;
      const answer = mine.filter((m) => m.role === 'assistant' && m.turnId === ourTurn).pop();
      printed = render(answer, printed);
      if (!canAsk) {
        const waiting = pendingApproval(answer);
        if (waiting) return finish(reportPending(waiting, opts));
      }
      void answerApprovals(ws, answer, answered, opts.approvals);
      const ended = turnEnded(state, ourTurn, answer);
      if (ended) {
        process.stdout.write('\n');
        if (ended === 'failed') process.stderr.write(`turn failed: ${state.error ?? 'no reason given (a later turn has started; see the session log)'}\n`);
        finish(ended === 'failed' ? CHAT_EXIT.failed : CHAT_EXIT.ok);
      }
    });
  });
}

type Message = HarnessState['messages'][number];

/**
 * Whether our turn is over, and how: the session stopped running with ours its last turn, or a
 * later turn (someone else's prompt) already started after it. Undefined while it runs.
 */
export function turnEnded(state: HarnessState, turnId: string, answer: Message | undefined): 'ok' | 'failed' | undefined {
  const last = state.messages[state.messages.length - 1];
  const ours = last?.turnId === turnId;
  if (ours && state.status === 'running') return undefined;
  if (answer?.stopReason === 'failed' || (ours && state.status === 'error')) return 'failed';
  return 'ok';
}
type ToolCall = NonNullable<Message['toolCalls']>[number];

function render(msg: Message | undefined, printed: number): number {
  if (!msg) return printed;
  if (msg.content.length > printed) process.stdout.write(msg.content.slice(printed));
  return msg.content.length;
}

/** Our prompt has not started: say why (an earlier turn runs, maybe waiting for a person). Returns true once said. */
function sayQueued(history: readonly Message[]): boolean {
  const waiting = history.flatMap((m) => m.toolCalls ?? []).find((tc) => tc.approval?.status === 'pending');
  process.stderr.write(
    waiting?.approval
      ? `queued: the session's current turn waits for approval ${waiting.approval.id} (${waiting.approval.reason}); this prompt runs once it is answered\n`
      : `queued: the session's current turn is still running; this prompt runs after it\n`,
  );
  return true;
}

/** Our turn started but no worker has taken it yet (ADR 0033): every one is busy, or none runs. Returns true once said. */
function sayWaiting(since: string): boolean {
  process.stderr.write(`waiting for a worker: the hub's workers are all busy (or none runs); this prompt runs when one takes it (scheduled ${since})\n`);
  return true;
}

function pendingApproval(msg: Message | undefined): ToolCall | undefined {
  return msg?.toolCalls?.find((tc) => tc.approval?.status === 'pending');
}

function reportPending(tc: ToolCall, opts: ChatOptions): number {
  const a = tc.approval as NonNullable<ToolCall['approval']>;
  process.stdout.write('\n');
  process.stderr.write(
    [
      `approval pending: ${a.id}: ${a.reason}`,
      'no terminal to ask on; answer it with one of:',
      `  curl -X POST -H "Authorization: Bearer $HUB_API_KEY" -H 'Content-Type: application/json' -d '{"decision":"approved"}' ${opts.hubUrl}/v1/sessions/${encodeURIComponent(opts.sessionId)}/approvals/${a.id}`,
      `  bin/hub chat --approve (or --deny) answers the approvals of the prompt it sends`,
      '',
    ].join('\n'),
  );
  return CHAT_EXIT.approvalPending;
}

async function answerApprovals(ws: WebSocket, msg: Message | undefined, answered: Set<string>, mode: ChatOptions['approvals']): Promise<void> {
  for (const tc of msg?.toolCalls ?? []) {
    const a = tc.approval;
    if (!a || a.status !== 'pending' || answered.has(a.id)) continue;
    answered.add(a.id);
    let approve = mode === 'approve';
    if (mode === 'ask') {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      // The reason already names the tool and its risk ("write_file (medium risk): ...").
      approve = /^y/i.test(await rl.question(`\n[approval] ${a.reason}. Allow? [y/N] `));
      rl.close();
    }
    ws.send(JSON.stringify({ type: 'commands', commands: [{ type: approve ? 'approve' : 'deny', approvalId: a.id }] }));
  }
}
