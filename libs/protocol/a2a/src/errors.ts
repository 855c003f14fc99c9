import { retryAfterMsIn, type DomainErrorCode } from '@hub/domain';
import type { JsonRpcId } from './schema';

/**
 * JSON-RPC error codes: JSON-RPC 2.0's own, A2A v1.0's (§5.4, the same numbers @a2a-js/sdk maps
 * to its error classes), and ours for what A2A has no code for (authentication, roles, tenant
 * limits, a busy session), in the implementation-defined server range A2A leaves free.
 */
export const A2A_ERROR_CODES = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  TASK_NOT_FOUND: -32001,
  TASK_NOT_CANCELABLE: -32002,
  PUSH_NOTIFICATION_NOT_SUPPORTED: -32003,
  UNSUPPORTED_OPERATION: -32004,
  CONTENT_TYPE_NOT_SUPPORTED: -32005,
  EXTENDED_CARD_NOT_CONFIGURED: -32007,
  VERSION_NOT_SUPPORTED: -32009,
  UNAUTHENTICATED: -32050,
  FORBIDDEN: -32051,
  RATE_LIMITED: -32052,
  SESSION_BUSY: -32053,
  UNAVAILABLE: -32054,
} as const;
export type A2aErrorKind = keyof typeof A2A_ERROR_CODES;

/** The HTTP status a refusal leaves with: JSON-RPC errors are 200 (as the SDK's own server does), except these. */
const HTTP_STATUS: Partial<Record<A2aErrorKind, number>> = { UNAUTHENTICATED: 401, FORBIDDEN: 403, RATE_LIMITED: 429, INTERNAL_ERROR: 500, UNAVAILABLE: 503 };

/** `google.rpc.ErrorInfo`, the detail A2A v1.0 errors carry in `data`. */
export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const ERROR_DOMAIN = 'harnesshub.dev';

export interface A2aError {
  kind: A2aErrorKind;
  message: string;
  /** ErrorInfo metadata: string values only (the field at fault, a wait, a task id). */
  metadata?: Record<string, string>;
  /** A used-up tenant limit's wait, for `Retry-After`. */
  retryAfterMs?: number;
}

/** A JSON-RPC error response and the HTTP status it is sent with. */
export interface WireError {
  httpStatus: number;
  retryAfterS?: number;
  body: {
    jsonrpc: '2.0';
    id: JsonRpcId | null;
    error: { code: number; message: string; data: { '@type': string; reason: string; domain: string; metadata?: Record<string, string> }[] };
  };
}

export function a2aError(kind: A2aErrorKind, message: string, metadata?: Record<string, string>, retryAfterMs?: number): A2aError {
  return { kind, message, ...(metadata ? { metadata } : {}), ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
}

export const invalidParams = (message: string, field: string): A2aError => a2aError('INVALID_PARAMS', message, { field });

/** The error response for request `id` (null when the request's id could not be read). */
export function encodeError(error: A2aError, id: JsonRpcId | null): WireError {
  const metadata = { ...error.metadata, ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: String(error.retryAfterMs) }) };
  return {
    httpStatus: HTTP_STATUS[error.kind] ?? 200,
    ...(error.retryAfterMs === undefined ? {} : { retryAfterS: Math.ceil(error.retryAfterMs / 1000) }),
    body: {
      jsonrpc: '2.0',
      id,
      error: {
        code: A2A_ERROR_CODES[error.kind],
        message: error.message,
        data: [{ '@type': ERROR_INFO_TYPE, reason: error.kind, domain: ERROR_DOMAIN, ...(Object.keys(metadata).length ? { metadata } : {}) }],
      },
    },
  };
}

/**
 * Every hub error as A2A says it. A session another tenant (or, for a client key, another key)
 * has is a task that does not exist; internal and provider failures say nothing more.
 */
const FROM_DOMAIN: Record<DomainErrorCode, { kind: A2aErrorKind; message?: string }> = {
  INVALID_COMMAND: { kind: 'INVALID_PARAMS' },
  SESSION_NOT_FOUND: { kind: 'TASK_NOT_FOUND', message: 'no such task' },
  SESSION_BUSY: { kind: 'SESSION_BUSY' },
  NO_ACTIVE_TURN: { kind: 'TASK_NOT_CANCELABLE', message: 'the task is not running' },
  TURN_NOT_FOUND: { kind: 'TASK_NOT_FOUND', message: 'no such task' },
  APPROVAL_NOT_FOUND: { kind: 'INVALID_PARAMS' },
  APPROVAL_ALREADY_RESOLVED: { kind: 'UNSUPPORTED_OPERATION' },
  APPROVER_NOT_ALLOWED: { kind: 'FORBIDDEN' },
  APPROVAL_REQUESTER_EXCLUDED: { kind: 'FORBIDDEN' },
  APPROVAL_ALREADY_VOTED: { kind: 'UNSUPPORTED_OPERATION' },
  STREAM_VERSION_CONFLICT: { kind: 'UNAVAILABLE', message: 'the session changed meanwhile; send the message again' },
  EVENT_TOO_LARGE: { kind: 'INVALID_PARAMS' },
  INVALID_EVENT: { kind: 'INVALID_PARAMS' },
  UNAUTHENTICATED: { kind: 'UNAUTHENTICATED' },
  FORBIDDEN: { kind: 'FORBIDDEN' },
  RATE_LIMITED: { kind: 'RATE_LIMITED' },
  CURSOR_OUT_OF_RANGE: { kind: 'INVALID_PARAMS' },
  PROVIDER_AUTH: { kind: 'INTERNAL_ERROR', message: 'the model provider failed' },
  PROVIDER_RATE_LIMIT: { kind: 'INTERNAL_ERROR', message: 'the model provider failed' },
  PROVIDER_DOWN: { kind: 'INTERNAL_ERROR', message: 'the model provider failed' },
  TIMEOUT: { kind: 'UNAVAILABLE', message: 'the hub did not take the request in time; send it again' },
  INTERNAL: { kind: 'INTERNAL_ERROR', message: 'internal error' },
};

/** A hub refusal (`DomainError` code, message, details) as an A2A error. */
export function a2aErrorFromDomain(code: DomainErrorCode, message: string, details?: Readonly<Record<string, unknown>>): A2aError {
  const m = FROM_DOMAIN[code];
  return a2aError(m.kind, m.message ?? message, undefined, retryAfterMsIn(details));
}
