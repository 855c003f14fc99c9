import { createInterface } from 'node:readline';
import { z } from 'zod';
import type { HarnessAdapter, HarnessSink, HarnessTurn, HarnessTurnResult } from './adapter';
import { within } from './adapter';
import { HarnessError } from './harness-errors';
import { ProcessAdapter } from './process-adapter';
import { McpServerSpec } from '../mcp/mcp-servers';

/**
 * A "Zene-style command provider" (RFC 005 adapter for `kind: "command"`): a long-lived process
 * that reads one JSON line per turn on stdin and writes one JSON line per turn on stdout. The
 * process keeps the conversation itself; `history` carries only turns it has not seen.
 *
 *   in:  {"type":"turn","session_id":"…","turn":2,"message":"…","history":[{"role":"user","content":"…"},…],"mcp_servers":[…]}
 *        {"type":"cancel","turn":2}                      (best effort; the turn is abandoned)
 *   out: {"text":"…","thought"?:"…","tool_calls"?:[{"id"?,"name","input"?,"output"?,"status"?:"complete"|"error"}],"done"?:false}
 *        {"error":{"message":"…"}}                         (the turn fails, the process lives on)
 *   An answer may carry "turn": n; one for another turn (a late answer to a cancelled one) is dropped.
 *
 * `mcp_servers` (every turn, possibly empty) are the environment's MCP servers the operator allows,
 * in the hub's `McpServerSpec` form, for the provider to connect to itself.
 * Anything else on stdout is a protocol error. stderr is kept for failure messages.
 */
export const CommandTurnLine = z.object({
  type: z.literal('turn'),
  session_id: z.string(),
  turn: z.number().int().positive(),
  message: z.string(),
  history: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() })),
  mcp_servers: z.array(McpServerSpec),
});
export type CommandTurnLine = z.infer<typeof CommandTurnLine>;

export const CommandToolRecord = z.object({
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  input: z.unknown().optional(),
  output: z.string().optional(),
  status: z.enum(['complete', 'error']).default('complete'),
});

export const CommandAnswerLine = z.union([
  z.object({ turn: z.number().int().optional(), error: z.object({ message: z.string() }) }),
  z.object({
    turn: z.number().int().optional(),
    text: z.string(),
    thought: z.string().optional(),
    tool_calls: z.array(CommandToolRecord).default([]),
    done: z.boolean().default(false),
    usage: z.object({ input_tokens: z.number().int().nonnegative(), output_tokens: z.number().int().nonnegative() }).optional(),
  }),
]);
export type CommandAnswerLine = z.infer<typeof CommandAnswerLine>;

const MAX_LINE_CHARS = 4 * 1024 * 1024;

export class CommandHarnessAdapter extends ProcessAdapter implements HarnessAdapter {
  private lines: string[] = [];
  private waiter?: () => void;
  private currentTurn = 0;

  /** The provider has no handshake: started means spawned, within `startup_timeout_s`. */
  async start(): Promise<void> {
    const child = this.spawnChild();
    if (!child.process.stdout) throw new HarnessError('HARNESS_START_FAILED', 'harness process has no stdout');
    createInterface({ input: child.process.stdout, crlfDelay: Infinity }).on('line', (line) => {
      if (!line.trim()) return;
      this.lines.push(line.slice(0, MAX_LINE_CHARS));
      this.waiter?.();
    });
    try {
      await within(
        child.spawned(),
        this.spec.startup_timeout_s * 1000,
        () => new HarnessError('HARNESS_START_FAILED', `harness ${this.spec.name} did not start within startup_timeout_s=${this.spec.startup_timeout_s}`),
      );
    } catch (e) {
      await this.stop();
      throw e;
    }
  }

  async sendMessageStreaming(turn: HarnessTurn, sink: HarnessSink): Promise<HarnessTurnResult> {
    const child = this.child;
    if (!child?.alive || !child.process.stdin) throw new HarnessError('HARNESS_CRASHED', `harness ${this.spec.name} is no longer running`);
    this.lines = [];
    this.currentTurn = turn.turnNumber;
    const line: CommandTurnLine = {
      type: 'turn',
      session_id: turn.sessionId,
      turn: turn.turnNumber,
      message: turn.message,
      history: turn.history,
      mcp_servers: this.spec.mcp_servers ?? [],
    };
    child.process.stdin.write(`${JSON.stringify(line)}\n`);
    let answer: CommandAnswerLine;
    do {
      const raw = await Promise.race([this.nextLine(), child.crashed('during the turn')]).catch((e: unknown) => {
        throw this.stopping ? this.stoppedDuringTurn() : e;
      });
      answer = parseAnswer(raw, this.spec.name);
    } while (answer.turn !== undefined && answer.turn !== turn.turnNumber);
    if ('error' in answer) throw new HarnessError('HARNESS_PROTOCOL', `harness ${this.spec.name} reported an error: ${answer.error.message}`);
    if (answer.thought) sink.emit({ type: 'thought', text: answer.thought });
    answer.tool_calls.forEach((t, i) => {
      const id = t.id ?? `t${i}`;
      sink.emit({ type: 'tool_call', id, name: t.name, input: t.input ?? null, status: 'in_progress' });
      sink.emit({ type: 'tool_update', id, status: t.status === 'error' ? 'failed' : 'completed', output: t.output ?? '' });
    });
    if (answer.text) sink.emit({ type: 'text', text: answer.text });
    const usage = answer.usage && {
      promptTokens: answer.usage.input_tokens,
      completionTokens: answer.usage.output_tokens,
      totalTokens: answer.usage.input_tokens + answer.usage.output_tokens,
    };
    return { stopReason: 'end_turn', done: answer.done, ...(usage ? { usage } : {}) };
  }

  async cancel(): Promise<void> {
    if (this.isAlive()) this.child?.process.stdin?.write(`${JSON.stringify({ type: 'cancel', turn: this.currentTurn })}\n`);
  }

  override async stop(): Promise<void> {
    this.stopping = true;
    this.waiter?.();
    await super.stop();
  }

  private async nextLine(): Promise<string> {
    while (this.lines.length === 0) {
      if (this.stopping) throw this.stoppedDuringTurn();
      await new Promise<void>((r) => (this.waiter = r));
    }
    return this.lines.shift() as string;
  }
}

function parseAnswer(raw: string, name: string): CommandAnswerLine {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new HarnessError('HARNESS_PROTOCOL', `harness ${name} wrote a line that is not JSON: ${raw.slice(0, 200)}`);
  }
  const r = CommandAnswerLine.safeParse(json);
  if (!r.success) throw new HarnessError('HARNESS_PROTOCOL', `harness ${name} wrote a line that is not an answer: ${raw.slice(0, 200)}`);
  return r.data;
}
