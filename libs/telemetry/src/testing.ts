import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { startTelemetry, type Telemetry } from './sdk';

/** A finished span as tests see it, without OpenTelemetry types. */
export interface RecordedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Readonly<Record<string, unknown>>;
  status: 'unset' | 'ok' | 'error';
  statusMessage?: string;
  events: ReadonlyArray<{ name: string; attributes: Readonly<Record<string, unknown>> }>;
}

/** Telemetry that keeps finished spans in memory. */
export interface InMemoryTelemetry extends Telemetry {
  /** Spans finished so far, in the order they ended. */
  spans(): RecordedSpan[];
  reset(): void;
}

const STATUS: Readonly<Record<SpanStatusCode, RecordedSpan['status']>> = {
  [SpanStatusCode.UNSET]: 'unset',
  [SpanStatusCode.OK]: 'ok',
  [SpanStatusCode.ERROR]: 'error',
};

function record(span: ReadableSpan): RecordedSpan {
  return {
    name: span.name,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    attributes: span.attributes,
    status: STATUS[span.status.code],
    statusMessage: span.status.message,
    events: span.events.map((event) => ({ name: event.name, attributes: event.attributes ?? {} })),
  };
}

/**
 * Starts real telemetry (as `startTelemetry` with exporter `none`) plus an in-memory exporter, so
 * tests of any lib or app can assert on spans without importing OpenTelemetry. Spans are exported
 * synchronously when they end. Shut it down in `afterAll`.
 */
export function startInMemoryTelemetry(serviceName = 'hub-test'): InMemoryTelemetry {
  const exporter = new InMemorySpanExporter();
  const telemetry = startTelemetry({
    serviceName,
    exporter: 'none',
    detectResources: false,
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  return {
    spans: () => exporter.getFinishedSpans().map(record),
    reset: () => exporter.reset(),
    shutdown: () => telemetry.shutdown(),
  };
}
