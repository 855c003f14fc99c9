/**
 * Every failure the hub can name. Edges (HTTP, each wire protocol, job outcomes) translate
 * these codes with exhaustive maps, so adding a code does not compile until each edge has
 * decided what it looks like there.
 */
export const DOMAIN_ERROR_CODES = [
  'INVALID_COMMAND',
  'SESSION_NOT_FOUND',
  'SESSION_BUSY',
  'NO_ACTIVE_TURN',
  'TURN_NOT_FOUND',
  'APPROVAL_NOT_FOUND',
  'APPROVAL_ALREADY_RESOLVED',
  /** The actor may not answer this approval: its rule names other approvers (ADR 0048). */
  'APPROVER_NOT_ALLOWED',
  /** The requester approving their own call, under a rule that excludes them (ADR 0048). */
  'APPROVAL_REQUESTER_EXCLUDED',
  /** The same key or person approving an approval that needs several, a second time (ADR 0048). */
  'APPROVAL_ALREADY_VOTED',
  'STREAM_VERSION_CONFLICT',
  'EVENT_TOO_LARGE',
  'INVALID_EVENT',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  /** A tenant limit (e.g. turns per minute) is used up; `details.retryAfterMs` says for how long. */
  'RATE_LIMITED',
  'CURSOR_OUT_OF_RANGE',
  'PROVIDER_AUTH',
  'PROVIDER_RATE_LIMIT',
  'PROVIDER_DOWN',
  'TIMEOUT',
  'INTERNAL',
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export class DomainError<C extends DomainErrorCode = DomainErrorCode> extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: C,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError;
}

/**
 * How long a refusal says to wait (`details.retryAfterMs`, set by a used-up tenant limit), in
 * whole milliseconds, at least 1; undefined for any other error. Every protocol's refusal names
 * this one wait, in its own shape.
 */
export function retryAfterMsOf(e: unknown): number | undefined {
  return isDomainError(e) ? retryAfterMsIn(e.details) : undefined;
}

/** {@link retryAfterMsOf} for an error's details carried apart from it (a command outcome, a frame to encode). */
export function retryAfterMsIn(details: Readonly<Record<string, unknown>> | undefined): number | undefined {
  const wait = details?.['retryAfterMs'];
  return typeof wait === 'number' && wait > 0 ? Math.max(1, Math.ceil(wait)) : undefined;
}

/** The same wait in whole seconds, at least 1: what an HTTP `Retry-After` header says. */
export function retryAfterSecondsOf(e: unknown): number | undefined {
  const ms = retryAfterMsOf(e);
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

/** Compile-time exhaustiveness for discriminated unions. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`Unhandled ${what}: ${JSON.stringify(value)}`);
}
