import { DiagLogLevel, context, diag, propagation, trace, type DiagLogger, type Span } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { NestInstrumentation } from '@opentelemetry/instrumentation-nestjs-core';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { ATTR } from './attributes';
import { CorrelationSpanProcessor, correlationIdFrom } from './correlation';
import { clearPrometheusReader, createPrometheusReader } from './metrics';
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
  /**
   * Load the library instrumentations (HTTP, Express, NestJS, pg, ioredis). Default: when spans
   * are exported; with `none` nobody sees their spans, so they would only cost time per query.
   */
  instrument?: boolean;
}

/** Paths whose requests get no span: probes and scrapes, many times a minute. */
const UNTRACED_PATHS = new Set(['/health', '/metrics']);

/**
 * An incoming request's correlation id, decided as its server span starts, so that span and every
 * span under it carry it; written back as the request's `X-Correlation-ID`, which the edge's
 * correlation middleware then reads (the same id, not a second random one).
 */
function correlateIncoming(span: Span, req: ClientRequest | IncomingMessage): void {
  if (!('headers' in req) || 'setHeader' in req) return;
  const given = req.headers['x-correlation-id'];
  const id = correlationIdFrom(Array.isArray(given) ? given[0] : given);
  req.headers['x-correlation-id'] = id;
  span.setAttribute(ATTR.CORRELATION_ID, id);
}

function instrumentations(): Instrumentation[] {
  return [
    new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0] ?? ''), requestHook: correlateIncoming }),
    new ExpressInstrumentation(),
    new NestInstrumentation(),
    // Only inside a span of ours: BullMQ's polling and the LISTEN connection would otherwise
    // make a root span per command.
    // A pool checkout is not worth a span of its own (a fifth of all spans before, ADR 0014).
    new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    new IORedisInstrumentation({ requireParentSpan: true }),
  ];
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
      return [new BatchSpanProcessor({ exporter })];
    }
    case 'console':
      return [new SimpleSpanProcessor({ exporter: new StderrSpanExporter() })];
    case 'none':
      return [];
  }
}

// OTel reports its own failures (an unreachable collector) through `diag`; send them to stderr
// at warn level rather than dropping them, and never to stdout.
const diagLine = (level: number, message: string, args: unknown[]) =>
  process.stderr.write(`${JSON.stringify({ level, time: new Date().toISOString(), name: 'otel', msg: [message, ...args.map(String)].join(' ').trim() })}\n`);
const stderrDiag: DiagLogger = {
  error: (message, ...args) => diagLine(50, message, args),
  warn: (message, ...args) => diagLine(40, message, args),
  info: () => undefined,
  debug: () => undefined,
  verbose: () => undefined,
};

/**
 * Starts OpenTelemetry for this process: a tracer provider (always, even for `none`, so trace
 * ids exist and traceparent propagates), the AsyncLocalStorage context manager, W3C trace-context
 * and baggage propagation, and the processor that stamps the correlation id on every span.
 * Call it first thing in `main`, before NestJS or any instrumented module is loaded.
 * Metrics go to a Prometheus reader (`serveMetrics`); logs go through `createLogger`. The
 * library instrumentations load when spans are exported (see `instrument`).
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
    // Explicit: left unset, the SDK would read OTEL_* variables and default to OTLP exporters
    // for metrics and logs, i.e. configuration outside @hub/config. Metrics are scraped by
    // Prometheus (metrics.ts); logs go through `createLogger`.
    metricReaders: [createPrometheusReader()],
    logRecordProcessors: [],
    instrumentations: (options.instrument ?? options.exporter !== 'none') ? instrumentations() : [],
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
        clearPrometheusReader();
        running = undefined;
      }
    },
  };
  running = telemetry;
  return telemetry;
}
