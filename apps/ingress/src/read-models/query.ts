import { DomainError, Protocol } from '@hub/domain';
import { APPROVAL_STATUSES, SESSION_STATUSES, TURN_STATUSES } from '@hub/projections';
import { QueryParams, type QueryParam } from '../http/query-params';

// Query-string validation for the read-model lists: every bad value is a 400 problem+json whose
// detail starts with the field's name (`limit: …`), and whose details name it.

export const LIMIT = { min: 1, max: 200, default: 50 } as const;

const limit: QueryParam = { name: 'limit', description: 'Items per page', integer: { minimum: LIMIT.min, maximum: LIMIT.max, default: LIMIT.default } };
const cursor: QueryParam = { name: 'cursor', description: 'The `nextCursor` of the previous page of this list' };

/** `GET /v1/sessions`. */
export const SESSION_LIST_QUERY = new QueryParams([
  limit,
  cursor,
  { name: 'status', description: 'Only sessions in this status', enum: SESSION_STATUSES },
  { name: 'protocol', description: 'Only sessions opened over this protocol', enum: Protocol.options },
]);
/** `GET /v1/sessions/ID/turns`. */
export const TURN_LIST_QUERY = new QueryParams([limit, cursor, { name: 'status', description: 'Only turns in this status', enum: TURN_STATUSES }]);
/** `GET /v1/approvals`. */
export const APPROVAL_LIST_QUERY = new QueryParams([
  { name: 'status', description: 'pending (the default) or resolved', enum: APPROVAL_STATUSES },
  limit,
  cursor,
  { name: 'sessionId', description: "Only this session's approvals" },
]);
/** `GET /v1/sessions/stream`. */
export const SESSION_FEED_QUERY = new QueryParams([
  {
    name: 'after',
    description: 'Resume after this session position (an `id:` the feed sent; `Last-Event-ID` works too); without it the feed starts at the newest session',
    integer: { minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  },
]);
/** `GET /v1/approvals/stream`. */
export const APPROVAL_FEED_QUERY = new QueryParams([
  {
    name: 'after',
    description:
      'Resume after this change position (an `id:` the feed sent; `Last-Event-ID` works too); without it the feed starts with every pending approval',
    integer: { minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  },
]);

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
