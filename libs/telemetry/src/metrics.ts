import type { IncomingMessage, ServerResponse } from 'node:http';
import { metrics, type Attributes, type Counter, type Histogram, type Meter, type ObservableResult } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';

/**
 * The hub's metrics, through OpenTelemetry, read by Prometheus at `GET /metrics` (ingress) and
 * on the worker's health port. Names follow OpenTelemetry (dots); the Prometheus exporter turns
 * them into `hub_turns_started_total`, `hub_turn_duration_seconds_bucket` and so on. Every name,
 * its attributes and the dashboard that reads it: docs/adr/0014-traces-metrics-logs.md and
 * deploy/grafana/harness-hub.json.
 */

const METER = '@hub/telemetry';
/** Seconds: a turn runs from milliseconds (offline) to minutes (tools, approvals). */
const TURN_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const APPEND_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

let prometheus: PrometheusExporter | undefined;

/** The metric reader `startTelemetry` installs: a Prometheus exporter without its own server. */
export function createPrometheusReader(): PrometheusExporter {
  prometheus = new PrometheusExporter({ preventServerStart: true });
  return prometheus;
}

/** Forgets the reader (telemetry shut down). */
export function clearPrometheusReader(): void {
  prometheus = undefined;
}

/** Answers a Prometheus scrape (text exposition format); 503 before telemetry starts. */
export function serveMetrics(req: IncomingMessage, res: ServerResponse): void {
  if (prometheus === undefined) {
    res.statusCode = 503;
    res.end('metrics are not running\n');
    return;
  }
  prometheus.getMetricsRequestHandler(req, res);
}

export interface HubInstruments {
  turnsStarted: Counter;
  turnsFinished: Counter;
  turnDuration: Histogram;
  turnFirstDelta: Histogram;
  modelTokens: Counter;
  modelCallDuration: Histogram;
  toolCalls: Counter;
  eventsAppended: Counter;
  appendDuration: Histogram;
  commands: Counter;
  queueWait: Histogram;
  httpRequests: Counter;
  socketsOpened: Counter;
  scheduleTicks: Counter;
}

let instruments: HubInstruments | undefined;
let instrumentsMeter: Meter | undefined;

/**
 * The hub's instruments. Created on first use from the global meter provider, and again when the
 * provider changed (a meter taken before `startTelemetry` would be a no-op forever).
 */
export function hubMetrics(): HubInstruments {
  const meter = metrics.getMeter(METER);
  if (instruments !== undefined && instrumentsMeter === meter) return instruments;
  instrumentsMeter = meter;
  instruments = {
    turnsStarted: meter.createCounter('hub.turns.started', { description: 'Turns a worker started running (first attempt)' }),
    turnsFinished: meter.createCounter('hub.turns.finished', { description: 'Turns that ended, by outcome (completed, failed, cancelled) and failure code' }),
    turnDuration: meter.createHistogram('hub.turn.duration.seconds', {
      unit: 's',
      description: 'From TurnRequested to the end of the turn',
      advice: { explicitBucketBoundaries: TURN_BUCKETS },
    }),
    turnFirstDelta: meter.createHistogram('hub.turn.first_delta.seconds', {
      unit: 's',
      description: 'From TurnRequested to the first text the model streamed',
      advice: { explicitBucketBoundaries: TURN_BUCKETS },
    }),
    modelTokens: meter.createCounter('hub.model.tokens', { description: 'Model tokens by tenant and kind (prompt, completion)' }),
    modelCallDuration: meter.createHistogram('hub.model.call.duration.seconds', {
      unit: 's',
      description: 'One model call (one step of a turn)',
      advice: { explicitBucketBoundaries: TURN_BUCKETS },
    }),
    toolCalls: meter.createCounter('hub.tool.calls', { description: 'Tool calls by tool, executor and outcome' }),
    eventsAppended: meter.createCounter('hub.events.appended', { description: 'Events appended to the log' }),
    appendDuration: meter.createHistogram('hub.event.append.duration.seconds', {
      unit: 's',
      description: 'One append transaction',
      advice: { explicitBucketBoundaries: APPEND_BUCKETS },
    }),
    commands: meter.createCounter('hub.commands', { description: 'Commands decided, by protocol, command and outcome' }),
    queueWait: meter.createHistogram('hub.queue.wait.seconds', {
      unit: 's',
      description: 'From a job being added (or due) to a worker taking it, by queue and job',
      advice: { explicitBucketBoundaries: TURN_BUCKETS },
    }),
    httpRequests: meter.createCounter('hub.http.requests', { description: 'HTTP requests by method, route and status' }),
    socketsOpened: meter.createCounter('hub.sockets.opened', { description: 'WebSocket connections accepted, by protocol' }),
    scheduleTicks: meter.createCounter('hub.schedule.ticks', {
      description: 'Schedule ticks decided, by outcome (started, buffered, skipped, missed, refused)',
    }),
  };
  return instruments;
}

/**
 * An observable gauge read at each scrape by `read` (which may query a database or Redis; a
 * failure leaves the gauge out of that scrape instead of failing it).
 */
/**
 * `read`, shared by the gauges one scrape observes: calls within `windowMs` of the first get its
 * answer (a scrape runs every gauge's callback back to back), so one query feeds several gauges.
 */
export function oncePerScrape<T>(read: () => Promise<T>, windowMs = 1_000): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at > windowMs) last = { at: now, value: read() };
    return last.value;
  };
}

export function observeGauge(name: string, description: string, read: () => Promise<Array<{ value: number; attributes?: Attributes }>>, unit?: string): void {
  const gauge = metrics.getMeter(METER).createObservableGauge(name, { description, unit });
  gauge.addCallback(async (result: ObservableResult) => {
    try {
      for (const { value, attributes } of await read()) result.observe(value, attributes);
    } catch {
      // A store that is down shows as a missing series; /health says why.
    }
  });
}
