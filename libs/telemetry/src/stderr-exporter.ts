import { ExportResultCode, hrTimeToMicroseconds, hrTimeToTimeStamp, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/**
 * The `console` exporter: one JSON line per finished span on stderr. OpenTelemetry's own
 * ConsoleSpanExporter prints to stdout, which the CLI's stdio protocols (Zene host, ACP) reserve
 * for protocol lines.
 */
export class StderrSpanExporter implements SpanExporter {
  constructor(private readonly write: (line: string) => void = (line) => process.stderr.write(line)) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    for (const span of spans) this.write(`${JSON.stringify(toJson(span))}\n`);
    resultCallback({ code: ExportResultCode.SUCCESS });
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

function toJson(span: ReadableSpan): Record<string, unknown> {
  return {
    span: span.name,
    service: span.resource.attributes['service.name'],
    trace_id: span.spanContext().traceId,
    span_id: span.spanContext().spanId,
    parent_span_id: span.parentSpanContext?.spanId,
    start: hrTimeToTimeStamp(span.startTime),
    duration_us: hrTimeToMicroseconds(span.duration),
    status: span.status,
    attributes: span.attributes,
    events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })),
  };
}
