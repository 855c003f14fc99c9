import type { HubEvent } from '@hub/domain';

/** One turn as a comparison sees it: what was asked, how it ended, what was said and done. */
export interface TurnOutcomeSummary {
  turnId: string;
  prompt: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  /** The answer text (every model call's text of the turn, in order). */
  text: string;
  toolCalls: { name: string; input: unknown; status: 'complete' | 'error' | 'denied' | 'pending'; output: string | null }[];
  /** The OpenEnv rubric's reward, where one scored the turn. */
  reward: number | null;
  model: string | null;
}

export interface TurnComparison {
  turnId: string;
  prompt: string;
  same: boolean;
  /** The fields that differ (`status`, `text`, `reward`, `toolCalls`, `toolCalls[1].output`, ...). */
  differences: string[];
  source: TurnOutcomeSummary | null;
  rerun: TurnOutcomeSummary | null;
}

export interface RunComparison {
  turns: TurnComparison[];
  summary: { turns: number; same: number; different: number; pending: number };
}

/** Each turn of a session, in request order, summarised for comparison. Pure. */
export function summariseTurns(events: readonly HubEvent[]): TurnOutcomeSummary[] {
  const turns = new Map<string, TurnOutcomeSummary>();
  const calls = new Map<string, TurnOutcomeSummary['toolCalls'][number]>();
  const on = (turnId: string, f: (t: TurnOutcomeSummary) => void) => {
    const t = turns.get(turnId);
    if (t) f(t);
  };
  for (const e of events) {
    switch (e.type) {
      case 'TurnRequested':
        turns.set(e.data.turnId, { turnId: e.data.turnId, prompt: e.data.prompt, status: 'queued', text: '', toolCalls: [], reward: null, model: null });
        break;
      case 'TurnStarted':
        on(e.data.turnId, (t) => (t.status = 'running'));
        break;
      case 'ModelCallStarted':
        on(e.data.turnId, (t) => (t.model = e.data.model));
        break;
      case 'ModelCallCompleted':
        on(e.data.turnId, (t) => (t.text += e.data.text));
        break;
      case 'ToolCallStarted':
        on(e.data.turnId, (t) => {
          const call = { name: e.data.name, input: e.data.input, status: 'pending' as const, output: null };
          calls.set(`${e.data.turnId}\u0000${e.data.toolCallId}`, call);
          t.toolCalls.push(call);
        });
        break;
      case 'ToolCallCompleted': {
        const call = calls.get(`${e.data.turnId}\u0000${e.data.toolCallId}`);
        if (call) Object.assign(call, { status: e.data.status, output: e.data.output });
        break;
      }
      case 'TurnCompleted':
        on(e.data.turnId, (t) => (t.status = 'completed'));
        break;
      case 'TurnFailed':
        on(e.data.turnId, (t) => (t.status = 'failed'));
        break;
      case 'TurnCancelled':
        on(e.data.turnId, (t) => (t.status = 'cancelled'));
        break;
      case 'RewardComputed':
        on(e.data.turnId, (t) => (t.reward = e.data.reward));
        break;
      default:
        break;
    }
  }
  return [...turns.values()];
}

/**
 * Compares a re-run with its source turn by turn (turns matched by id: a re-drive keeps them):
 * status, answer text, tool calls (name, arguments, status, output) and reward. The model is
 * shown, never compared: a re-drive against another model is the point. A turn of the re-run
 * that has not ended yet is pending, not different.
 */
export function compareRuns(source: readonly HubEvent[], rerun: readonly HubEvent[], turnIds?: readonly string[]): RunComparison {
  const a = new Map(summariseTurns(source).map((t) => [t.turnId, t]));
  const b = new Map(summariseTurns(rerun).map((t) => [t.turnId, t]));
  const ids = turnIds ?? [...new Set([...a.keys(), ...b.keys()])];
  const turns = ids.map((turnId): TurnComparison => {
    const s = a.get(turnId) ?? null;
    const r = b.get(turnId) ?? null;
    const differences = s && r ? differencesOf(s, r) : ['turn'];
    return { turnId, prompt: (s ?? r)?.prompt ?? '', same: differences.length === 0, differences, source: s, rerun: r };
  });
  const pending = turns.filter((t) => t.rerun === null || t.rerun.status === 'queued' || t.rerun.status === 'running').length;
  const same = turns.filter((t) => t.same).length;
  return { turns, summary: { turns: turns.length, same, different: turns.length - same - pending, pending } };
}

function differencesOf(s: TurnOutcomeSummary, r: TurnOutcomeSummary): string[] {
  if (r.status === 'queued' || r.status === 'running') return ['status'];
  const out: string[] = [];
  if (s.status !== r.status) out.push('status');
  if (s.text !== r.text) out.push('text');
  if (s.reward !== r.reward) out.push('reward');
  if (s.toolCalls.length !== r.toolCalls.length) out.push('toolCalls');
  s.toolCalls.forEach((c, i) => {
    const o = r.toolCalls[i];
    if (!o) return;
    for (const field of ['name', 'input', 'status', 'output'] as const) {
      if (JSON.stringify(c[field]) !== JSON.stringify(o[field])) out.push(`toolCalls[${i}].${field}`);
    }
  });
  return out;
}
