import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline/promises';
import { HubClient, HubError, turnOutcome, type HarnessState, type SessionStream } from '@harness-hub/client';

export interface ChatOptions {
  hubUrl: string;
  apiKey: string;
  sessionId: string;
  prompt: string;
  /** What to answer approvals with when there is no terminal to ask: 'ask' prompts on a TTY. */
  approvals: 'ask' | 'approve' | 'deny';
}

/** Exit codes of `hub chat`: 0 answered, 1 the turn failed, 3 no hub, 5 an approval waits and no one can answer it here. */
export const CHAT_EXIT = { ok: 0, failed: 1, unreachable: 3, approvalPending: 5 } as const;

/** Connections in a row that fail before chat gives up (exit 3); a stream that delivered resumes however often it drops. */
const MAX_FAILURES = 3;

/**
 * `hub chat`: sends one prompt over the Harness transport WebSocket (the client library's
 * session stream, which resumes by cursor across a dropped socket) and prints the answer as it
 * streams, answering approvals on the way. Without a terminal and without `--approve`/`--deny`
 * it cannot ask, so a pending approval ends it (exit 5) with the approval's id and how to answer
 * it, instead of waiting forever.
 */
export async function chat(opts: ChatOptions): Promise<number> {
  const hub = new HubClient({ baseUrl: opts.hubUrl, apiKey: opts.apiKey, stream: { maxFailures: MAX_FAILURES } });
  const stream = hub.sessions.open(opts.sessionId);
  try {
    let first: HarnessState;
    try {
      first = await stream.waitFor(() => true, { what: "the session's snapshot" });
    } catch (e) {
      return unreachable(e, opts.hubUrl);
    }
    return await converse(stream, first, opts);
  } finally {
    stream.close();
  }
}

/** Submits the prompt after the snapshot `first` and follows its turn to the end. */
function converse(stream: SessionStream, first: HarnessState, opts: ChatOptions): Promise<number> {
  const canAsk = opts.approvals !== 'ask' || process.stdin.isTTY === true;
  /** Messages that were there before our prompt are history: not printed, not answered. */
  const firstNew = first.messages.length;
  // Our turn's id is the submit's idempotency key: the stream sends it again after a drop, and it runs once.
  const ourTurn = randomUUID();
  let printed = 0;
  // A turn already runs: ours is queued behind it (nothing may arrive for a long while).
  let saidQueued = first.status === 'running' && sayQueued(first.messages);
  let saidWaiting = false;
  const answered = new Set<string>();
  return new Promise<number>((resolve) => {
    let done = false;
    const finish = (code: number) => {
      if (!done) resolve(code);
      done = true;
    };
    stream.submit(opts.prompt, { idempotencyKey: ourTurn }).catch(() => {
      // An error frame that refused the prompt was printed as it came; a closed stream is said below.
      if (stream.link !== 'closed') finish(CHAT_EXIT.failed);
    });
    stream.subscribe((event) => {
      if (event.type === 'link' && event.link === 'closed') return finish(stream.closeError ? unreachable(stream.closeError, opts.hubUrl) : CHAT_EXIT.failed);
      if (event.type !== 'frame' || done) return;
      if (event.frame.type === 'error') return void process.stderr.write(`error: ${event.frame.code ?? ''} ${event.frame.message}\n`);
      const state = stream.state as HarnessState;
      const mine = state.messages.slice(firstNew);
      if (!saidQueued && mine.length === 0 && state.status === 'running') saidQueued = sayQueued(state.messages.slice(0, firstNew));
      if (!saidWaiting && state.queued && mine.some((m) => m.turnId === state.queued?.turnId)) saidWaiting = sayWaiting(state.queued.since);
      // The first frame that shows our turn may already show it ended (a watcher is handed
      // everything that settled together as one delta).
      if (!mine.some((m) => m.turnId === ourTurn)) return;
      const answer = mine.filter((m) => m.role === 'assistant' && m.turnId === ourTurn).pop();
      printed = render(answer, printed);
      if (!canAsk) {
        const waiting = pendingApproval(answer);
        if (waiting) return finish(reportPending(waiting, opts));
      }
      void answerApprovals(stream, answer, answered, opts.approvals);
      const ended = turnOutcome(state, ourTurn);
      if (ended) {
        process.stdout.write('\n');
        if (ended === 'failed') process.stderr.write(`turn failed: ${state.error ?? 'no reason given (a later turn has started; see the session log)'}\n`);
        finish(ended === 'failed' ? CHAT_EXIT.failed : CHAT_EXIT.ok);
      }
    });
  });
}

/** Says why the hub could not be used (refused, or not there) and returns exit 3. */
function unreachable(e: unknown, hubUrl: string): number {
  if (e instanceof HubError && e.status !== undefined) process.stderr.write(`hub refused the connection: HTTP ${e.status}\n`);
  else if (e instanceof HubError && e.code !== 'unreachable') process.stderr.write(`hub closed the session's stream: ${e.code}: ${e.message}\n`);
  else process.stderr.write(`cannot reach the hub at ${hubUrl}: ${e instanceof Error ? e.message : String(e)}\n`);
  return CHAT_EXIT.unreachable;
}

type Message = HarnessState['messages'][number];
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

async function answerApprovals(stream: SessionStream, msg: Message | undefined, answered: Set<string>, mode: ChatOptions['approvals']): Promise<void> {
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
    if (approve) stream.approve(a.id);
    else stream.deny(a.id);
  }
}
