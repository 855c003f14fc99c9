import {
  ROOT_CONTEXT,
  SpanStatusCode,
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
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

/** Runs `fn` with `ctx` as the active context (see {@link contextFromTraceparent}). */
export function withContext<T>(ctx: TraceContext, fn: () => T): T {
  return context.with(ctx, fn);
}
