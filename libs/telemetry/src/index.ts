export { ATTR, type AttrName, type SpanAttributes } from './attributes';
export { correlationIdFrom, currentCorrelationId, runWithCorrelation, runWithTenant } from './correlation';
export { createLogger, REDACTED_PATHS, type CreateLoggerOptions, type LogLevel, type Logger } from './logger';
export { startTelemetry, type Telemetry, type TelemetryOptions, type TraceExporterKind } from './sdk';
export {
  contextFromHeaders,
  contextFromTraceparent,
  currentSpanIds,
  currentTraceparent,
  failCurrentSpan,
  failRequestSpans,
  setSpanAttributes,
  withContext,
  withSpan,
  withoutChildSpans,
  withRequestTrace,
  type SpanHandle,
  type TraceContext,
  type TraceHeaders,
} from './spans';
export { startInMemoryTelemetry, type InMemoryTelemetry, type RecordedSpan } from './testing';
export { guarded, installProcessGuards } from './guard';
export { NestPinoLogger } from './nest-logger';
export { DependencyState, dependencyState } from './dependency-state';
export { hubMetrics, observeGauge, oncePerScrape, serveMetrics, type HubInstruments } from './metrics';
export { webhookMetrics, type WebhookInstruments } from './webhook-metrics';
