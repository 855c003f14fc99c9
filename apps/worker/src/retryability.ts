import { isDomainError, type DomainErrorCode } from '@hub/domain';
import { ProviderError } from '@hub/agent';

/**
 * Whether a job that threw should be tried again. Pure and total over the domain codes: a
 * rule violation or bad input stays wrong however often it runs; contention and unavailable
 * dependencies may clear. Errors that are not ours (driver, network) are assumed transient.
 */
const RETRYABLE: Record<DomainErrorCode, boolean> = {
  INVALID_COMMAND: false,
  SESSION_NOT_FOUND: false,
  SESSION_BUSY: false,
  NO_ACTIVE_TURN: false,
  TURN_NOT_FOUND: false,
  APPROVAL_NOT_FOUND: false,
  APPROVAL_ALREADY_RESOLVED: false,
  APPROVER_NOT_ALLOWED: false,
  APPROVAL_REQUESTER_EXCLUDED: false,
  APPROVAL_ALREADY_VOTED: false,
  STREAM_VERSION_CONFLICT: true, // someone else appended first: re-read and decide again
  EVENT_TOO_LARGE: false,
  INVALID_EVENT: false,
  UNAUTHENTICATED: false,
  FORBIDDEN: false,
  RATE_LIMITED: false,
  CURSOR_OUT_OF_RANGE: false,
  PROVIDER_AUTH: false,
  PROVIDER_RATE_LIMIT: true,
  PROVIDER_DOWN: true,
  TIMEOUT: true,
  INTERNAL: false,
};

export function isRetryable(e: unknown): boolean {
  if (e instanceof ProviderError) return e.retryable;
  if (isDomainError(e)) return RETRYABLE[e.code];
  return true;
}
