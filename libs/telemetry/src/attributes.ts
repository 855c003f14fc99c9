/**
 * Span attribute names the hub sets, in one place so that ingress, queue and worker spans can be
 * joined on them in a trace backend. Values are OpenTelemetry attribute values (string, number,
 * boolean).
 */
export const ATTR = {
  /** The X-Correlation-ID of the request that started it all; set on every span automatically. */
  CORRELATION_ID: 'hub.correlation_id',
  TENANT_ID: 'hub.tenant_id',
  SESSION_ID: 'hub.session_id',
  TURN_ID: 'hub.turn_id',
  /** The wire a command came in on (`transport`, `openharness`, `zene`, `openenv`, `acp`, ...). */
  PROTOCOL: 'hub.protocol',
  COMMAND: 'hub.command',
  /** A JSON-RPC request's method (ACP). */
  METHOD: 'hub.method',
  COMMAND_ID: 'hub.command_id',
  EVENT_TYPE: 'hub.event_type',
  GLOBAL_POSITION: 'hub.global_position',
  STREAM_VERSION: 'hub.stream_version',
  /** The job catalog name of a BullMQ job. */
  JOB: 'hub.job',
  JOB_ID: 'hub.job_id',
  JOB_ATTEMPT: 'hub.job_attempt',
  QUEUE: 'hub.queue',
  MODEL_PROVIDER: 'hub.model_provider',
  MODEL: 'hub.model',
  STEP: 'hub.step',
  TOOL_NAME: 'hub.tool_name',
  TOOL_CALL_ID: 'hub.tool_call_id',
  APPROVAL_ID: 'hub.approval_id',
  ACTOR_ID: 'hub.actor_id',
  CONNECTION_ID: 'hub.connection_id',
  OUTCOME: 'hub.outcome',
} as const;

/** One of the names in {@link ATTR}. */
export type AttrName = (typeof ATTR)[keyof typeof ATTR];

/**
 * Attributes as callers pass them: `undefined` values are dropped, so optional ids can be passed
 * without a condition at every call site.
 */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** `attrs` without its undefined values, as OpenTelemetry wants them. */
export function definedAttributes(attrs: SpanAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}
