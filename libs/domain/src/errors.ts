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

/** Compile-time exhaustiveness for discriminated unions. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`Unhandled ${what}: ${JSON.stringify(value)}`);
}
