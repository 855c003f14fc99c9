import { DOMAIN_ERROR_CODES, type DomainErrorCode } from '@hub/domain';

/** The `response.error.code` values this hub sends (spec §13: stable, machine-readable). */
export const WIRE_ERROR_CODES = [
  'invalid_request',
  'protocol_version_unsupported',
  'unauthenticated',
  'forbidden',
  'payload_too_large',
  'not_found',
  'session_busy',
  'approval_already_resolved',
  'turn_cancelled',
  'rate_limited',
  'engine_timeout',
  'engine_unavailable',
  'engine_error',
  'internal_error',
] as const;
export type WireErrorCode = (typeof WIRE_ERROR_CODES)[number];

/** A protocol error, with the HTTP status it leaves with. `message` never echoes request data. */
export interface WireError {
  readonly code: WireErrorCode;
  readonly message: string;
  readonly retryable: boolean;
  readonly httpStatus: number;
  readonly details?: Record<string, unknown>;
  /** How long a client should wait before it retries (a used-up tenant limit): the reply's `Retry-After`. */
  readonly retryAfterS?: number;
}

const HTTP_STATUS: Record<WireErrorCode, number> = {
  invalid_request: 400,
  protocol_version_unsupported: 400,
  unauthenticated: 401,
  forbidden: 403,
  payload_too_large: 413,
  not_found: 404,
  session_busy: 409,
  approval_already_resolved: 409,
  turn_cancelled: 409,
  rate_limited: 429,
  engine_timeout: 504,
  engine_unavailable: 503,
  engine_error: 502,
  internal_error: 500,
};

/** Builds a {@link WireError}; the HTTP status follows from the code. */
export function wireError(code: WireErrorCode, message: string, opts: { retryable?: boolean; details?: Record<string, unknown> } = {}): WireError {
  return { code, message, retryable: opts.retryable ?? false, httpStatus: HTTP_STATUS[code], ...(opts.details ? { details: opts.details } : {}) };
}

/** `invalid_request` naming the offending field, as in the upstream error example. */
export function invalidRequest(message: string, field?: string): WireError {
  return wireError('invalid_request', message, field ? { details: { field } } : {});
}

// Exhaustive: a new domain error code does not compile until it has a place on this wire.
const FROM_DOMAIN: Record<DomainErrorCode, { code: WireErrorCode; retryable: boolean }> = {
  INVALID_COMMAND: { code: 'invalid_request', retryable: false },
  SESSION_NOT_FOUND: { code: 'not_found', retryable: false },
  SESSION_BUSY: { code: 'session_busy', retryable: true },
  NO_ACTIVE_TURN: { code: 'not_found', retryable: false },
  TURN_NOT_FOUND: { code: 'not_found', retryable: false },
  APPROVAL_NOT_FOUND: { code: 'not_found', retryable: false },
  APPROVAL_ALREADY_RESOLVED: { code: 'approval_already_resolved', retryable: false },
  APPROVER_NOT_ALLOWED: { code: 'forbidden', retryable: false },
  APPROVAL_REQUESTER_EXCLUDED: { code: 'forbidden', retryable: false },
  APPROVAL_ALREADY_VOTED: { code: 'invalid_request', retryable: false },
  STREAM_VERSION_CONFLICT: { code: 'engine_unavailable', retryable: true },
  EVENT_TOO_LARGE: { code: 'payload_too_large', retryable: false },
  INVALID_EVENT: { code: 'internal_error', retryable: false },
  UNAUTHENTICATED: { code: 'unauthenticated', retryable: false },
  FORBIDDEN: { code: 'forbidden', retryable: false },
  RATE_LIMITED: { code: 'rate_limited', retryable: true },
  CURSOR_OUT_OF_RANGE: { code: 'invalid_request', retryable: false },
  PROVIDER_AUTH: { code: 'engine_error', retryable: false },
  PROVIDER_RATE_LIMIT: { code: 'rate_limited', retryable: true },
  PROVIDER_DOWN: { code: 'engine_unavailable', retryable: true },
  TIMEOUT: { code: 'engine_timeout', retryable: true },
  INTERNAL: { code: 'internal_error', retryable: false },
};

const isDomainCode = (code: string): code is DomainErrorCode => (DOMAIN_ERROR_CODES as readonly string[]).includes(code);

/**
 * A command the hub refused (the worker's `{ok: false, code, message}`). Internal errors say
 * only "internal error": their text is not for shells.
 */
export function wireErrorFromDomain(code: DomainErrorCode, message: string, retryAfterMs?: number): WireError {
  const mapped = FROM_DOMAIN[code];
  const safe = mapped.code === 'internal_error' ? 'internal error' : message;
  if (!(retryAfterMs !== undefined && retryAfterMs > 0)) return wireError(mapped.code, safe, { retryable: mapped.retryable, details: { hub_code: code } });
  // A used-up limit says how long, in the details (safe for logs) and as the HTTP Retry-After.
  const wait = Math.ceil(retryAfterMs);
  return {
    ...wireError(mapped.code, safe, { retryable: mapped.retryable, details: { hub_code: code, retry_after_ms: wait } }),
    retryAfterS: Math.ceil(wait / 1000),
  };
}

/**
 * A turn that ended in `TurnFailed`. Only a turn that itself timed out is `engine_timeout`
 * (always retryable); other codes keep the retryability the worker recorded.
 */
export function wireErrorFromTurnFailure(code: string, message: string, retryable: boolean): WireError {
  if (!isDomainCode(code)) return wireError('engine_error', message, { retryable, details: { hub_code: code } });
  if (code === 'TIMEOUT') return wireError('engine_timeout', message, { retryable: true, details: { hub_code: code } });
  const mapped = FROM_DOMAIN[code];
  const safe = mapped.code === 'internal_error' ? 'internal error' : message;
  return wireError(mapped.code, safe, { retryable, details: { hub_code: code } });
}
