import { ROOT_CONTEXT, SpanStatusCode, context, defaultTextMapGetter, defaultTextMapSetter, trace, type Context, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator, getRPCMetadata, suppressTracing } from '@opentelemetry/core';
import { definedAttributes, type SpanAttributes } from './attributes';

/** An opaque trace context (OpenTelemetry's `Context`), for {@link withContext}. */
export type TraceContext = Context;

/** W3C trace context as it travels in headers and in event metadata. */
export interface TraceHeaders {
  traceparent?: string;
  tracestate?: string;
}

/** What `withSpan` hands to its callback: enough to annotate the span, nothing vendor-specific. */
export interface SpanHandle {
  readonly traceId: string;
  readonly spanId: string;
  setAttributes(attrs: SpanAttributes): void;
  addEvent(name: string, attrs?: SpanAttributes): void;
}

const TRACER_NAME = '@hub/telemetry';
// Used directly (not through the global propagator) so traceparent round-trips work even
// before or without `startTelemetry`, e.g. in unit tests of the queue.
const w3c = new W3CTraceContextPropagator();

function handleOf(span: Span): SpanHandle {
  const { traceId, spanId } = span.spanContext();
  return {
    traceId,
    spanId,
    setAttributes: (attrs) => span.setAttributes(definedAttributes(attrs)),
    addEvent: (name, attrs = {}) => span.addEvent(name, definedAttributes(attrs)),
  };
}

/**
 * Runs `fn` inside a new active span named `name` (a child of the current span, if any). A thrown
 * error is recorded on the span and sets its status to ERROR, then rethrown; the span always ends.
 */
export function withSpan<T>(name: string, attrs: SpanAttributes, fn: (span: SpanHandle) => Promise<T> | T): Promise<T> {
  const tracer = trace.getTracer(TRACER_NAME);
  return tracer.startActiveSpan(name, { attributes: definedAttributes(attrs) }, async (span) => {
    try {
      return await fn(handleOf(span));
    } catch (error) {
      const exception = error instanceof Error ? error : new Error(String(error));
      span.recordException(exception);
      span.setStatus({ code: SpanStatusCode.ERROR, message: exception.message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `fn` with no spans below the current one: for a span of ours that already says what its
 * statements do (the append: stream, event count, positions, duration), where a span per SQL
 * statement and pool checkout would be most of a turn's spans and a fifth of its time.
 */
export function withoutChildSpans<T>(fn: () => Promise<T>): Promise<T> {
  return context.with(suppressTracing(context.active()), fn);
}

/**
 * Marks the current span failed with a domain code (a turn that ended `TurnFailed` returns
 * normally from its job, so no exception would set the status).
 */
export function failCurrentSpan(code: string, message: string): void {
  const span = trace.getActiveSpan();
  if (span !== undefined) failSpan(span, code, message);
}

/**
 * Marks a failed request (a problem answer, a refused command) ERROR with its domain code: the
 * current span and, over HTTP, the server span the HTTP instrumentation made, which it would
 * otherwise leave UNSET for a 4xx. An operator filtering on errors then sees refusals too.
 */
export function failRequestSpans(code: string, message: string): void {
  failCurrentSpan(code, message);
  const server = getRPCMetadata(context.active())?.span;
  if (server !== undefined && server !== trace.getActiveSpan()) failSpan(server, code, message);
}

function failSpan(span: Span, code: string, message: string): void {
  span.setAttribute('hub.error_code', code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: `${code}: ${message}` });
}

/**
 * Runs `fn` in the trace of the request it serves. When a span is already active (the HTTP
 * instrumentation's server span, which read `traceparent` itself), it stays the parent; else
 * (no instrumentation, or a WebSocket upgrade, which it does not trace) the caller's
 * `traceparent` is, or a new trace begins.
 */
export function withRequestTrace<T>(headers: TraceHeaders, fn: () => T): T {
  const active = trace.getSpanContext(context.active());
  if (active !== undefined && trace.isSpanContextValid(active)) return fn();
  return context.with(contextFromTraceparent(headers.traceparent, headers.tracestate), fn);
}

/** Adds attributes to the current span (no-op when there is none). */
export function setSpanAttributes(attrs: SpanAttributes): void {
  trace.getActiveSpan()?.setAttributes(definedAttributes(attrs));
}

/** Trace and span id of the current span, when there is a valid one (for logs). */
export function currentSpanIds(): { traceId: string; spanId: string } | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (spanContext === undefined || !trace.isSpanContextValid(spanContext)) return undefined;
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}

/**
 * The W3C trace context of the current span, to put in a job payload, event metadata or an
 * outgoing header. Empty when no span is active.
 */
export function currentTraceparent(): TraceHeaders {
  const carrier: Record<string, string> = {};
  w3c.inject(context.active(), carrier, defaultTextMapSetter);
  const out: TraceHeaders = {};
  if (carrier['traceparent'] !== undefined) out.traceparent = carrier['traceparent'];
  if (carrier['tracestate'] !== undefined) out.tracestate = carrier['tracestate'];
  return out;
}

/**
 * A context whose parent is the remote span described by `traceparent` (from a queue job or an
 * HTTP header). A missing or malformed traceparent gives an empty context, so spans started in it
 * begin a new trace instead of failing.
 */
export function contextFromTraceparent(traceparent?: string, tracestate?: string): TraceContext {
  if (traceparent === undefined) return ROOT_CONTEXT;
  const carrier: Record<string, string> = { traceparent };
  if (tracestate !== undefined) carrier['tracestate'] = tracestate;
  return w3c.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
}

/**
 * {@link contextFromTraceparent} from a request's headers (a repeated header's first value): for
 * a WebSocket upgrade, which the HTTP instrumentation does not trace, the socket's parent.
 */
export function contextFromHeaders(headers: Record<string, string | string[] | undefined>): TraceContext {
  const first = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  return contextFromTraceparent(first('traceparent'), first('tracestate'));
}

/** Runs `fn` with `ctx` as the active context (see {@link contextFromTraceparent}). */
export function withContext<T>(ctx: TraceContext, fn: () => T): T {
  return context.with(ctx, fn);
}
