import type { UsageDay, UsageTotals } from './useUsage';

const DAY_MS = 86_400_000;

/** The chart's columns: one x per UTC day of the range (epoch seconds), and each series per day. */
export interface UsageSeries {
  days: string[];
  x: number[];
  completed: number[];
  failed: number[];
  cancelled: number[];
  promptTokens: number[];
  completionTokens: number[];
}

/** Every UTC day from `from` to `to` (YYYY-MM-DD), both included. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/**
 * Pure: the usage API's rows (per day and key) as one column per day of the range, summed over
 * keys, with zeros on days nothing ran (a chart's gap is a day of no use, not missing data).
 */
export function usageSeries(rows: readonly UsageDay[], from: string, to: string): UsageSeries {
  const days = daysBetween(from, to);
  const at = new Map(days.map((d, i) => [d, i]));
  const zeros = () => days.map(() => 0);
  const s: UsageSeries = {
    days,
    x: days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000),
    completed: zeros(),
    failed: zeros(),
    cancelled: zeros(),
    promptTokens: zeros(),
    completionTokens: zeros(),
  };
  for (const r of rows) {
    const i = at.get(r.day);
    if (i === undefined) continue;
    s.completed[i] += r.turns.completed;
    s.failed[i] += r.turns.failed;
    s.cancelled[i] += r.turns.cancelled;
    s.promptTokens[i] += r.promptTokens;
    s.completionTokens[i] += r.completionTokens;
  }
  return s;
}

/** A total's number as the page shows it (and the browser spec reads back): digits grouped. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** Turns of every outcome, summed. */
export function turnsOf(t: UsageTotals): number {
  return t.turns.completed + t.turns.failed + t.turns.cancelled + t.turns.delivered + t.turns.open;
}
