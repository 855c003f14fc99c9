import { BusyPolicy } from '@hub/domain';
import { z } from 'zod';

// Pinned to specs/zene-host-protocol-v1.md (Zene Host Protocol v1, MVP) and to the upstream
// engine it describes, ParaTensor/zene v0.6.5 (a9b36f7): `shared/fixtures/zene/` holds its real
// lines. Input follows "accept both": the spec's required fields, plus what the real engine and
// clawbridge send (`protocol_version`, `type`, `stream`, `ts_ms`, `metadata`); unknown keys are
// ignored, as serde does upstream. Output follows the spec and the fixtures exactly (strict).

/** The only protocol version there is. */
export const ZENE_PROTOCOL_VERSION = 1 as const;
/** What `timeout_ms` defaults to (the spec's suggestion). */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Our bound on `timeout_ms`: a request-response call has no business outliving an hour. */
export const MAX_TIMEOUT_MS = 3_600_000;
/** Our bound on ids and keys: they become turn ids and travel in every event of the turn. */
export const MAX_ID_CHARS = 256;

const nonBlank = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => s.trim() !== '', 'must not be empty');

const Id = nonBlank(MAX_ID_CHARS);
const optionalText = z.string().max(MAX_ID_CHARS).nullish();
const version = z.literal(ZENE_PROTOCOL_VERSION).nullish();

/** `run`: one prompt in a session. `type` may be omitted (the spec's MVP lines have it; a bare one is a run). */
export const RunRequest = z.object({
  protocol_version: version,
  type: z.literal('run').nullish(),
  request_id: Id,
  session_id: nonBlank(1024),
  prompt: nonBlank(Number.MAX_SAFE_INTEGER),
  channel_id: optionalText,
  agent: optionalText,
  timeout_ms: z.number().positive().max(MAX_TIMEOUT_MS).nullish(),
  idempotency_key: Id.nullish(),
  stream: z.boolean().nullish(),
  ts_ms: z.number().nullish(),
  metadata: z.unknown().optional(),
  /** Our addition: what a second turn in a busy session does (default `reject` → `BUSY`). */
  busy_policy: BusyPolicy.nullish(),
});
export type RunRequest = z.infer<typeof RunRequest>;

/** What every non-run request carries besides its `type`. */
const requestIds = { protocol_version: version, request_id: Id, session_id: z.string().max(1024).nullish() };

export const PingRequest = z.object({ ...requestIds, type: z.literal('ping') });
export type PingRequest = z.infer<typeof PingRequest>;

/** Upstream accepts the target as `target_request_id` or `cancel_request_id`. */
export const CancelRequest = z
  .object({
    ...requestIds,
    type: z.literal('cancel'),
    target_request_id: Id.nullish(),
    cancel_request_id: Id.nullish(),
  })
  .refine((c) => !!(c.target_request_id ?? c.cancel_request_id), {
    message: 'cancel request requires target_request_id or cancel_request_id',
    path: ['target_request_id'],
  });
export type CancelRequest = z.infer<typeof CancelRequest>;

export const SessionCloseRequest = z.object({ ...requestIds, type: z.literal('session_close') });
export type SessionCloseRequest = z.infer<typeof SessionCloseRequest>;

/** A decoded request; `type` is always set (a bare run gets `'run'`). */
export type ZeneRequest = (RunRequest & { type: 'run' }) | PingRequest | CancelRequest | SessionCloseRequest;
export const REQUEST_TYPES = ['run', 'ping', 'cancel', 'session_close'] as const;

export const ZeneUsage = z.strictObject({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});
export type ZeneUsage = z.infer<typeof ZeneUsage>;

/** `--bridge-compat`: the flat reply of the spec's "Response Schema (MVP)"; no version, no type. */
export const BridgeReply = z.strictObject({
  ok: z.boolean(),
  request_id: z.string(),
  session_id: z.string(),
  text: z.string(),
  error_code: z.string().nullable(),
  error_message: z.string().nullable(),
  usage: ZeneUsage,
});
export type BridgeReply = z.infer<typeof BridgeReply>;

export const ErrorInfo = z.strictObject({
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  /** Upstream adds it to `BUSY` (429). */
  http_status: z.number().int().optional(),
});
export type ErrorInfo = z.infer<typeof ErrorInfo>;

const lineBase = {
  protocol_version: z.literal(ZENE_PROTOCOL_VERSION),
  request_id: z.string(),
  session_id: z.string().nullable(),
  ts_ms: z.number().int(),
};

export const ACK_STATUSES = ['ACCEPTED', 'PONG', 'CANCEL_ACCEPTED', 'DUPLICATE_IN_PROGRESS', 'SESSION_CLOSED'] as const;
export const AckLine = z.strictObject({
  ...lineBase,
  type: z.literal('ack'),
  status: z.enum(ACK_STATUSES),
  request_ts_ms: z.number().int().optional(),
  target_request_id: z.string().optional(),
  existing_request_id: z.string().optional(),
});
export type AckLine = z.infer<typeof AckLine>;

export const EventLine = z.strictObject({
  ...lineBase,
  type: z.literal('event'),
  event_type: z.enum(['REQUEST_ACCEPTED', 'RUN_FINISHED']),
  seq: z.number().int().positive(),
  payload: z.record(z.string(), z.unknown()),
});
export type EventLine = z.infer<typeof EventLine>;

export const FINAL_STATUSES = ['OK', 'ERROR', 'TIMEOUT', 'CANCELED'] as const;
export const FinalLine = z.strictObject({
  ...lineBase,
  type: z.literal('final'),
  status: z.enum(FINAL_STATUSES),
  text: z.string(),
  usage: ZeneUsage,
  error: ErrorInfo.nullable(),
  latency_ms: z.number().int().nonnegative(),
  replayed: z.boolean().optional(),
});
export type FinalLine = z.infer<typeof FinalLine>;

export const ErrorLine = z.strictObject({ ...lineBase, type: z.literal('error'), error: ErrorInfo });
export type ErrorLine = z.infer<typeof ErrorLine>;

/** Protocol mode (without `--bridge-compat`): every line the host writes. */
export const ProtocolLine = z.discriminatedUnion('type', [AckLine, EventLine, FinalLine, ErrorLine]);
export type ProtocolLine = z.infer<typeof ProtocolLine>;
