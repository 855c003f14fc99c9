import type { Usage } from '@hub/domain';
import { RETRYABLE_BY_DEFAULT, UPSTREAM_HTTP_STATUS, type ZeneErrorCode } from './errors';
import {
  ZENE_PROTOCOL_VERSION,
  type AckLine,
  type BridgeReply,
  type ErrorInfo,
  type ErrorLine,
  type EventLine,
  type FinalLine,
  type ProtocolLine,
  type ZeneUsage,
} from './schema';

/**
 * How a request ended, in this protocol's terms. `failed` ran and failed (a `final` line with
 * status `ERROR`); `rejected` never ran (an `error` line: bad input, `BUSY`, ...).
 */
export type ZeneResult =
  | { kind: 'ok'; text: string; usage: ZeneUsage }
  | { kind: 'failed'; code: ZeneErrorCode; message: string; retryable: boolean; usage: ZeneUsage }
  | { kind: 'rejected'; code: ZeneErrorCode; message: string; retryable: boolean }
  | { kind: 'timeout'; usage: ZeneUsage }
  | { kind: 'canceled'; reason: string; usage: ZeneUsage };

/** The request's own ids, echoed on every reply (never the hub's mapped session id). */
export interface ReplyIds {
  readonly request_id: string;
  readonly session_id: string;
}

export const ZERO_USAGE: ZeneUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
export const TIMEOUT_MESSAGE = 'request exceeded timeout_ms';

/** Upstream's `template_fallback_text`: the `text` of a protocol-mode `final` that failed. */
const FALLBACK_TEXT: { readonly [C in ZeneErrorCode]: string } = {
  PROVIDER_AUTH: 'Provider authentication failed. Please verify credentials and retry later.',
  PROVIDER_RATE_LIMIT: 'Provider is rate limited. Please retry shortly.',
  PROVIDER_DOWN: 'Provider is temporarily unavailable. Please retry shortly.',
  TIMEOUT: 'Request timed out. Please retry with a simpler prompt or a higher timeout.',
  INVALID_REQUEST: '',
  INTERNAL: '',
  BUSY: '',
};

/** The hub's token counts on this wire. */
export function usageOf(u: Usage): ZeneUsage {
  return { prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.totalTokens };
}

/** A request refused before it ran, with upstream's default retryability for the code. */
export function rejected(code: ZeneErrorCode, message: string): ZeneResult {
  return { kind: 'rejected', code, message, retryable: RETRYABLE_BY_DEFAULT[code] };
}

/**
 * `--bridge-compat`: the one flat reply. Errors have empty `text`; `usage` is always the real
 * count (a turn that failed or timed out midway did use tokens). A cancelled turn is
 * `INTERNAL`, as upstream maps its `CANCELED` runs in this mode.
 */
export function bridgeReply(ids: ReplyIds, result: ZeneResult): BridgeReply {
  const reply = (ok: boolean, text: string, code: string | null, message: string | null, usage: ZeneUsage): BridgeReply => ({
    ok,
    request_id: ids.request_id,
    session_id: ids.session_id,
    text,
    error_code: code,
    error_message: message,
    usage,
  });
  switch (result.kind) {
    case 'ok':
      return reply(true, result.text, null, null, result.usage);
    case 'failed':
      return reply(false, '', result.code, result.message, result.usage);
    case 'rejected':
      return reply(false, '', result.code, result.message, ZERO_USAGE);
    case 'timeout':
      return reply(false, '', 'TIMEOUT', TIMEOUT_MESSAGE, result.usage);
    case 'canceled':
      return reply(false, '', 'INTERNAL', `the turn was cancelled (${result.reason})`, result.usage);
    default: {
      const unhandled: never = result;
      throw new Error(`unhandled zene result ${JSON.stringify(unhandled)}`);
    }
  }
}

export interface LineTiming {
  /** Wall-clock milliseconds of the line (the caller's clock: pure code has none). */
  readonly tsMs: number;
  readonly latencyMs: number;
  /** Set on a result served again for a repeated idempotency key. */
  readonly replayed?: boolean;
}

/** Protocol mode: the lines that end a request — one `final`, or one `error` if it never ran. */
export function resultLines(ids: ReplyIds, result: ZeneResult, at: LineTiming): ProtocolLine[] {
  if (result.kind === 'rejected') return [errorLine(ids, result.code, result.message, at.tsMs, result.retryable)];
  return [finalLine(ids, result, at)];
}

/** Protocol mode `final`, shaped like upstream's `build_final_payload`. */
export function finalLine(ids: ReplyIds, result: Exclude<ZeneResult, { kind: 'rejected' }>, at: LineTiming): FinalLine {
  const base = {
    protocol_version: ZENE_PROTOCOL_VERSION,
    type: 'final' as const,
    request_id: ids.request_id,
    session_id: ids.session_id,
    ts_ms: Math.round(at.tsMs),
  };
  const tail = { latency_ms: Math.max(0, Math.round(at.latencyMs)), ...(at.replayed ? { replayed: true } : {}) };
  switch (result.kind) {
    case 'ok':
      return { ...base, status: 'OK', text: result.text, usage: result.usage, error: null, ...tail };
    case 'failed':
      return {
        ...base,
        status: 'ERROR',
        text: FALLBACK_TEXT[result.code],
        usage: result.usage,
        error: errorInfo(result.code, result.message, result.retryable),
        ...tail,
      };
    case 'timeout':
      return { ...base, status: 'TIMEOUT', text: FALLBACK_TEXT.TIMEOUT, usage: result.usage, error: errorInfo('TIMEOUT', TIMEOUT_MESSAGE, true), ...tail };
    case 'canceled':
      return { ...base, status: 'CANCELED', text: '', usage: result.usage, error: null, ...tail };
    default: {
      const unhandled: never = result;
      throw new Error(`unhandled zene result ${JSON.stringify(unhandled)}`);
    }
  }
}

/** Protocol mode `error`: a request that could not be taken (bad input, `BUSY`, ...). */
export function errorLine(
  ids: { request_id: string; session_id: string | null },
  code: ZeneErrorCode,
  message: string,
  tsMs: number,
  retryable = RETRYABLE_BY_DEFAULT[code],
): ErrorLine {
  return {
    protocol_version: ZENE_PROTOCOL_VERSION,
    type: 'error',
    request_id: ids.request_id,
    session_id: ids.session_id,
    ts_ms: Math.round(tsMs),
    error: errorInfo(code, message, retryable),
  };
}

/** Protocol mode `ack`; `extra` carries `request_ts_ms`, `target_request_id` or `existing_request_id`. */
export function ackLine(
  ids: { request_id: string; session_id: string | null },
  status: AckLine['status'],
  tsMs: number,
  extra: Pick<AckLine, 'request_ts_ms' | 'target_request_id' | 'existing_request_id'> = {},
): AckLine {
  return {
    protocol_version: ZENE_PROTOCOL_VERSION,
    type: 'ack',
    request_id: ids.request_id,
    session_id: ids.session_id,
    ts_ms: Math.round(tsMs),
    status,
    ...extra,
  };
}

/** Protocol mode `event` (only for runs with `stream: true`, upstream's default). */
export function eventLine(ids: ReplyIds, eventType: EventLine['event_type'], seq: number, payload: Record<string, unknown>, tsMs: number): EventLine {
  return {
    protocol_version: ZENE_PROTOCOL_VERSION,
    type: 'event',
    request_id: ids.request_id,
    session_id: ids.session_id,
    ts_ms: Math.round(tsMs),
    event_type: eventType,
    seq,
    payload,
  };
}

function errorInfo(code: ZeneErrorCode, message: string, retryable: boolean): ErrorInfo {
  const status = UPSTREAM_HTTP_STATUS[code];
  return status === undefined ? { code, message, retryable } : { code, message, retryable, http_status: status };
}
