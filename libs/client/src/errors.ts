import type { Problem } from './api-types';

/**
 * The hub refused: its `code` (problem+json's `code`, a transport error frame's `code`, or
 * `HTTP_<status>` where the answer had none), the HTTP status when there was one, and how long it
 * asked the client to wait (`Retry-After`, or a frame's `retryAfterMs`) when it said.
 */
export class HubError extends Error {
  override readonly name = 'HubError';
  constructor(
    readonly code: string,
    message: string,
    readonly details: { status?: number; retryAfterMs?: number; problem?: Problem } = {},
  ) {
    super(message);
  }

  get status(): number | undefined {
    return this.details.status;
  }

  get retryAfterMs(): number | undefined {
    return this.details.retryAfterMs;
  }
}

/** No answer at all: the hub could not be reached, or the connection broke before an answer. */
export class HubUnreachableError extends Error {
  override readonly name = 'HubUnreachableError';
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach the hub at ${url}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * `Retry-After` in milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3), relative to
 * `now`; undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | null | undefined, now: number): number | undefined {
  if (header === null || header === undefined || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The HubError an unsuccessful HTTP answer stands for, read from its problem+json body when it has one. */
export function errorOfAnswer(status: number, headers: { get(name: string): string | null }, body: string, now: number): HubError {
  let parsed: Partial<Problem> & { detail?: unknown; message?: unknown } = {};
  try {
    const json: unknown = JSON.parse(body);
    if (json && typeof json === 'object') parsed = json as typeof parsed;
  } catch {
    // not JSON: the status says it all
  }
  const code = typeof parsed.code === 'string' ? parsed.code : `HTTP_${status}`;
  const text = [parsed.detail, parsed.message, parsed.title].find((t): t is string => typeof t === 'string') ?? (body.slice(0, 500) || `HTTP ${status}`);
  const wait = retryAfterMs(headers.get('retry-after'), now);
  return new HubError(code, text, {
    status,
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
    ...(typeof parsed.code === 'string' ? { problem: parsed as Problem } : {}),
  });
}
