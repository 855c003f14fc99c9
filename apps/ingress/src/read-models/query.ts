import { DomainError } from '@hub/domain';

// Query-string validation for the read-model lists: every bad value is a 400 problem+json whose
// detail starts with the field's name (`limit: …`), and whose details name it.

export const LIMIT = { min: 1, max: 200, default: 50 } as const;

function invalid(field: string, message: string): DomainError {
  return new DomainError('INVALID_COMMAND', `${field}: ${message}`, { field });
}

/** Rejects parameters the route does not take (a typo must not silently widen a filter). */
export function onlyKnown(query: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(query)) if (!known.includes(key)) throw invalid(key, `unknown parameter (accepted: ${known.join(', ')})`);
}

/** One value of a parameter, or undefined; a repeated parameter is refused. */
export function single(query: Record<string, unknown>, field: string): string | undefined {
  const v = query[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalid(field, 'give it once, as a plain value');
  return v;
}

export function limitOf(query: Record<string, unknown>): number {
  const raw = single(query, 'limit');
  if (raw === undefined) return LIMIT.default;
  const n = /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= LIMIT.min && n <= LIMIT.max)) throw invalid('limit', `an integer from ${LIMIT.min} to ${LIMIT.max}`);
  return n;
}

export function oneOf<T extends string>(query: Record<string, unknown>, field: string, values: readonly T[], fallback?: T): T | undefined {
  const raw = single(query, field);
  if (raw === undefined) return fallback;
  if (!(values as readonly string[]).includes(raw)) throw invalid(field, `one of ${values.join(', ')}`);
  return raw as T;
}

/** A non-negative position (a feed cursor), from a query parameter or `Last-Event-ID`. */
export function positionOf(raw: string | undefined, field: string): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n)) throw invalid(field, 'a position the feed handed out');
  return n;
}
