import type { z } from 'zod';
import { HarnessAction, ResetRequest, StepRequest, WsClientFrame, type WsErrorCode } from './schema';
import { parseJsonInput } from '@hub/protocol-input';

/** FastAPI's 422 body item, as OpenEnv's server answers a body it cannot validate. */
export interface ValidationDetail {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; detail: ValidationDetail[] };

/** zod issues as FastAPI `detail` items, located under `prefix` (e.g. `["body"]`). */
export function validationDetail(error: z.ZodError, prefix: (string | number)[], input: unknown): ValidationDetail[] {
  return error.issues.map((i) => {
    const path = i.path.filter((p): p is string | number => typeof p !== 'symbol');
    const tooShortString = i.code === 'too_small' && i.origin === 'string';
    return {
      type: tooShortString ? 'string_too_short' : i.code === 'invalid_type' && i.input === undefined ? 'missing' : i.code,
      loc: [...prefix, ...path],
      msg: tooShortString ? `String should have at least ${String(i.minimum)} character` : i.message,
      input: valueAt(input, path),
    };
  });
}

function valueAt(input: unknown, path: (string | number)[]): unknown {
  let v: unknown = input;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

/** `POST /reset` body (an absent body is `{}`). */
export function decodeReset(body: unknown): Decoded<ResetRequest> {
  const r = ResetRequest.safeParse(body ?? {});
  return r.success ? { ok: true, value: r.data } : { ok: false, detail: validationDetail(r.error, ['body'], body) };
}

/** `POST /step` body with a harness action: `{"action": {"message": "..."}}`. */
export function decodeStep(body: unknown): Decoded<{ request: StepRequest; action: HarnessAction }> {
  const r = StepRequest.safeParse(body);
  if (!r.success) return { ok: false, detail: validationDetail(r.error, ['body'], body) };
  const a = HarnessAction.safeParse(r.data.action);
  if (!a.success) return { ok: false, detail: validationDetail(a.error, ['body', 'action'], r.data.action) };
  return { ok: true, value: { request: r.data, action: a.data } };
}

/** A harness action alone (the `data` of a `/ws` step frame). */
export function decodeAction(data: unknown): Decoded<HarnessAction> {
  const a = HarnessAction.safeParse(data);
  return a.success ? { ok: true, value: a.data } : { ok: false, detail: validationDetail(a.error, ['data'], data) };
}

export type WsDecoded = { ok: true; frame: WsClientFrame } | { ok: false; code: WsErrorCode; message: string };

const WS_TYPES = new Set(['reset', 'step', 'state', 'close', 'mcp']);

/** One `/ws` text frame, with OpenEnv's error codes for what it cannot take. */
export function decodeWsFrame(raw: string): WsDecoded {
  // The hub's one input check (depth, string size, NUL, unpaired surrogates) before zod.
  const parsed = parseJsonInput(raw);
  if (!parsed.ok && parsed.kind === 'syntax')
    return { ok: false, code: 'INVALID_JSON', message: `Invalid JSON: ${parsed.message.replace(/^not valid JSON: /, '')}` };
  if (!parsed.ok) return { ok: false, code: 'VALIDATION_ERROR', message: parsed.message };
  const json = parsed.value;
  const type = json !== null && typeof json === 'object' ? (json as { type?: unknown }).type : undefined;
  if (typeof type !== 'string' || !WS_TYPES.has(type)) {
    return { ok: false, code: 'UNKNOWN_TYPE', message: `Unknown message type: ${typeof type === 'string' ? type : String(type)}` };
  }
  const r = WsClientFrame.safeParse(json);
  if (!r.success) return { ok: false, code: 'VALIDATION_ERROR', message: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  return { ok: true, frame: r.data };
}
