import { stringify } from 'safe-stable-stringify';
import type { HubEvent } from '@hub/domain';

/** A tool call's recorded outcome, as the model saw it. */
export interface RecordedResult {
  status: 'complete' | 'error' | 'denied';
  output: string;
}

/**
 * The tool results of a recorded session (a re-drive's source), to serve a re-run instead of
 * running the tools again. A call matches a recorded one with the same tool and the same
 * arguments (key order aside) in the same source turn, the n-th such call the n-th recorded one;
 * failing that, the first recorded call with the same tool and arguments anywhere in the session
 * (the model may have moved it to another turn). Calls that never completed are not served.
 */
export class RecordedTools {
  private readonly byTurn = new Map<string, Map<string, RecordedResult[]>>();
  private readonly anywhere = new Map<string, RecordedResult>();

  static fromEvents(events: readonly HubEvent[]): RecordedTools {
    const recorded = new RecordedTools();
    const started = new Map<string, { turnId: string; key: string }>();
    for (const e of events) {
      // Keyed by what the model asked for: after an approver's edit the recorded output is the
      // edited call's, and a re-run's model asks for the original again.
      if (e.type === 'ToolCallStarted')
        started.set(`${e.data.turnId}\u0000${e.data.toolCallId}`, { turnId: e.data.turnId, key: callKey(e.data.name, e.data.input) });
      if (e.type === 'ToolCallCompleted') {
        const call = started.get(`${e.data.turnId}\u0000${e.data.toolCallId}`);
        if (call) recorded.add(call.turnId, call.key, { status: e.data.status, output: e.data.output });
      }
    }
    return recorded;
  }

  private add(turnId: string, key: string, result: RecordedResult): void {
    const turn = this.byTurn.get(turnId) ?? new Map<string, RecordedResult[]>();
    this.byTurn.set(turnId, turn);
    turn.set(key, [...(turn.get(key) ?? []), result]);
    if (!this.anywhere.has(key)) this.anywhere.set(key, result);
  }

  /** The recorded result for the `ordinal`-th (0-based) call of `name` with `input` in `sourceTurnId`. */
  find(sourceTurnId: string, name: string, input: unknown, ordinal: number): RecordedResult | undefined {
    const key = callKey(name, input);
    return this.byTurn.get(sourceTurnId)?.get(key)?.[ordinal] ?? this.anywhere.get(key);
  }

  get size(): number {
    return this.anywhere.size;
  }
}

/** Same tool, same arguments: the name and the arguments' JSON with keys sorted. */
export function callKey(name: string, input: unknown): string {
  return `${name}\u0000${stringify(input ?? null)}`;
}
