import { DOMAIN_ERROR_CODES, type DomainErrorCode } from '@hub/domain';

/**
 * The spec's minimum error set plus upstream's `BUSY` (retryable). `BUSY` here means the
 * session's busy policy (`reject`, our default) refused a second turn while one runs.
 */
export const ZENE_ERROR_CODES = ['INVALID_REQUEST', 'TIMEOUT', 'PROVIDER_AUTH', 'PROVIDER_RATE_LIMIT', 'PROVIDER_DOWN', 'INTERNAL', 'BUSY'] as const;
export type ZeneErrorCode = (typeof ZENE_ERROR_CODES)[number];

/**
 * How every hub failure is named on this wire; exhaustive, so a new domain code does not
 * compile until it is placed here. A refused hub key is `PROVIDER_AUTH`: to the bridge the hub
 * is the provider, and upstream maps "unauthorized" / "invalid api key" the same way.
 */
export const ZENE_CODE_OF_DOMAIN: { readonly [C in DomainErrorCode]: ZeneErrorCode } = {
  INVALID_COMMAND: 'INVALID_REQUEST',
  SESSION_NOT_FOUND: 'INVALID_REQUEST',
  SESSION_BUSY: 'BUSY',
  NO_ACTIVE_TURN: 'INVALID_REQUEST',
  TURN_NOT_FOUND: 'INVALID_REQUEST',
  APPROVAL_NOT_FOUND: 'INTERNAL',
  APPROVAL_ALREADY_RESOLVED: 'INTERNAL',
  APPROVER_NOT_ALLOWED: 'INVALID_REQUEST',
  APPROVAL_REQUESTER_EXCLUDED: 'INVALID_REQUEST',
  APPROVAL_ALREADY_VOTED: 'INVALID_REQUEST',
  // Someone else kept appending to the session: the same advice as a busy session, retry.
  STREAM_VERSION_CONFLICT: 'BUSY',
  EVENT_TOO_LARGE: 'INVALID_REQUEST',
  INVALID_EVENT: 'INTERNAL',
  UNAUTHENTICATED: 'PROVIDER_AUTH',
  FORBIDDEN: 'PROVIDER_AUTH',
  // Upstream's retryable "come back later" with HTTP 429: the tenant's own limit, not the model's.
  RATE_LIMITED: 'BUSY',
  CURSOR_OUT_OF_RANGE: 'INTERNAL',
  PROVIDER_AUTH: 'PROVIDER_AUTH',
  PROVIDER_RATE_LIMIT: 'PROVIDER_RATE_LIMIT',
  PROVIDER_DOWN: 'PROVIDER_DOWN',
  TIMEOUT: 'TIMEOUT',
  INTERNAL: 'INTERNAL',
};

/** Upstream's `default_retryable`, plus `BUSY` (retryable, as upstream sends it). */
export const RETRYABLE_BY_DEFAULT: { readonly [C in ZeneErrorCode]: boolean } = {
  INVALID_REQUEST: false,
  TIMEOUT: true,
  PROVIDER_AUTH: false,
  PROVIDER_RATE_LIMIT: true,
  PROVIDER_DOWN: true,
  INTERNAL: true,
  BUSY: true,
};

/** The `http_status` upstream attaches to some error objects (only `BUSY`: 429). */
export const UPSTREAM_HTTP_STATUS: { readonly [C in ZeneErrorCode]?: number } = { BUSY: 429 };

/**
 * A failure code as the hub records it (`TurnFailed.code`, a rejected command's code) on this
 * wire. Turn failures carry a `DomainErrorCode` (providers throw `ProviderError`); anything
 * else is an internal error.
 */
export function zeneCodeOf(code: string): ZeneErrorCode {
  return isDomainErrorCode(code) ? ZENE_CODE_OF_DOMAIN[code] : 'INTERNAL';
}

function isDomainErrorCode(code: string): code is DomainErrorCode {
  return (DOMAIN_ERROR_CODES as readonly string[]).includes(code);
}
