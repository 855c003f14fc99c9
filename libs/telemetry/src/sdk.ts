import { DiagLogLevel, context, diag, propagation, trace, type DiagLogger } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { CorrelationSpanProcessor } from './correlation';
import { StderrSpanExporter } from './stderr-exporter';

/** Where finished spans go. */
export type TraceExporterKind = 'otlp' | 'console' | 'none';

/** Options for {@link startTelemetry}; usually straight from the app's config. */
export interface TelemetryOptions {
  /** `service.name` of the resource, e.g. `hub-ingress`. */
  serviceName: string;
  exporter: TraceExporterKind;
  /** OTLP/HTTP base URL (`http://collector:4318`); `/v1/traces` is appended. Unset: OTel's default/env. */
  otlpEndpoint?: string;
  /** Extra processors, after the built-in ones (tests use an in-memory exporter this way). */
  spanProcessors?: SpanProcessor[];
  /**
   * Detect host and process resource attributes (default true). Detection finishes
   * asynchronously and holds back the export of the first spans until it does; tests turn it off
   * to see spans the moment they end.
   */
  detectResources?: boolean;
}

/** A running telemetry setup. */
export interface Telemetry {
  /**
   * Flushes pending spans and unregisters the global providers, so telemetry can start again.
   * Never rejects: an export failure is reported on stderr.
   */
  shutdown(): Promise<void>;
}

const OTLP_TIMEOUT_MS = 5000;

let running: Telemetry | undefined;

function exportProcessors(options: TelemetryOptions): SpanProcessor[] {
  switch (options.exporter) {
    case 'otlp': {
      const url = options.otlpEndpoint === undefined ? undefined : `${options.otlpEndpoint.replace(/\/+$/, '')}/v1/traces`;
      // Bounded so that shutdown with an unreachable collector fits in a container's stop grace
      // period (10 s by default) instead of retrying past it.
      const exporter = new OTLPTraceExporter({ timeoutMillis: OTLP_TIMEOUT_MS, ...(url === undefined ? {} : { url }) });
      return [new BatchSpanProcessor(exporter)];
    }
    case 'console':
      return [new SimpleSpanProcessor(new StderrSpanExporter())];
    case 'none':
      return [];
  }
}

// OTel reports its own failures (an unreachable collector) through `diag`; send them to stderr
// at warn level rather than dropping them, and never to stdout.
const stderrDiag: DiagLogger = {
  error: (message, ...args) => process.stderr.write(`otel error: ${message} ${args.map(String).join(' ')}\n`),
  warn: (message, ...args) => process.stderr.write(`otel warn: ${message} ${args.map(String).join(' ')}\n`),
  info: () => undefined,
  debug: () => undefined,
  verbose: () => undefined,
};

/**
 * Starts OpenTelemetry for this process: a tracer provider (always, even for `none`, so trace
 * ids exist and traceparent propagates), the AsyncLocalStorage context manager, W3C trace-context
 * and baggage propagation, and the processor that stamps the correlation id on every span.
 * Call it first thing in `main`, before NestJS or any instrumented module is loaded.
 * Metrics and logs exporters are off: logs go through `createLogger`.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (running !== undefined) throw new Error('startTelemetry: telemetry is already running in this process');
  diag.setLogger(stderrDiag, DiagLogLevel.WARN);
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    autoDetectResources: options.detectResources ?? true,
    spanProcessors: [new CorrelationSpanProcessor(), ...exportProcessors(options), ...(options.spanProcessors ?? [])],
    textMapPropagator: new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
    // Explicitly empty: left unset, the SDK would read OTEL_* variables and default to OTLP
    // exporters for metrics and logs, i.e. configuration outside @hub/config.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  const telemetry: Telemetry = {
    async shutdown() {
      try {
        await sdk.shutdown();
      } catch (error) {
        // An unreachable collector must not turn a clean process exit into a crash; the spans
        // are lost either way, so say so and carry on shutting down.
        stderrDiag.error('flushing spans on shutdown failed:', error instanceof Error ? error.message : String(error));
      } finally {
        trace.disable();
        context.disable();
        propagation.disable();
        diag.disable();
        running = undefined;
      }
    },
  };
  running = telemetry;
  return telemetry;
}
