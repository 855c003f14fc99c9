import { DomainError } from '@hub/domain';
import { QueryParams } from '../http/query-params';
import { single } from './query';

/** The longest range one request sums: a year and a day (a leap year's whole). */
export const MAX_USAGE_DAYS = 366;
/** Without `from`: this many days up to `to`, `to` included. */
export const DEFAULT_USAGE_DAYS = 30;

/** `GET /v1/usage`. */
export const USAGE_QUERY = new QueryParams([
  { name: 'from', description: `First UTC day (YYYY-MM-DD), included; default ${DEFAULT_USAGE_DAYS - 1} days before \`to\`` },
  { name: 'to', description: 'Last UTC day (YYYY-MM-DD), included; default today' },
  { name: 'key', description: "Only this API key's turns (its prefix); a client key reads only its own" },
]);

const DAY = 86_400_000;

function dayOf(query: Record<string, unknown>, field: string): string | undefined {
  const raw = single(query, field);
  if (raw === undefined) return undefined;
  // A real calendar day: 2026-02-30 parses to March, so it must print back the same.
  if (!/^\d{4}-\d\d-\d\d$/.test(raw) || new Date(`${raw}T00:00:00Z`).toISOString().slice(0, 10) !== raw) {
    throw new DomainError('INVALID_COMMAND', `${field}: a day as YYYY-MM-DD`, { field });
  }
  return raw;
}

/** The range a usage request asks for, checked: `from` ≤ `to`, at most {@link MAX_USAGE_DAYS} days. */
export function usageRange(query: Record<string, unknown>, now = new Date()): { from: string; to: string } {
  const to = dayOf(query, 'to') ?? now.toISOString().slice(0, 10);
  const from = dayOf(query, 'from') ?? new Date(Date.parse(to) - (DEFAULT_USAGE_DAYS - 1) * DAY).toISOString().slice(0, 10);
  const days = (Date.parse(to) - Date.parse(from)) / DAY + 1;
  if (days < 1) throw new DomainError('INVALID_COMMAND', 'from: not after to', { field: 'from' });
  if (days > MAX_USAGE_DAYS) throw new DomainError('INVALID_COMMAND', `from: at most ${MAX_USAGE_DAYS} days before to`, { field: 'from' });
  return { from, to };
}
