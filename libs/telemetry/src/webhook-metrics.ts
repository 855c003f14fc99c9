import { metrics, type Counter, type Histogram, type Meter } from '@opentelemetry/api';

/** Seconds: an attempt ends in milliseconds, or at its timeout. */
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface WebhookInstruments {
  /** Attempts by outcome (succeeded, failed, timeout, refused, redirected, gone). */
  attempts: Counter;
  /** Messages that reached a final state, by outcome (succeeded, failed). */
  messages: Counter;
  attemptDuration: Histogram;
}

let instruments: WebhookInstruments | undefined;
let instrumentsMeter: Meter | undefined;

/**
 * The webhook deliveries' instruments (issue 28): `hub.webhook.attempts`,
 * `hub.webhook.messages`, `hub.webhook.attempt.duration.seconds`; the queue depth per endpoint is
 * a gauge the worker observes (`hub.webhook.queue.depth`). Made like {@link hubMetrics}'s.
 */
export function webhookMetrics(): WebhookInstruments {
  const meter = metrics.getMeter('@hub/telemetry');
  if (instruments !== undefined && instrumentsMeter === meter) return instruments;
  instrumentsMeter = meter;
  instruments = {
    attempts: meter.createCounter('hub.webhook.attempts', { description: 'Webhook delivery attempts by outcome' }),
    messages: meter.createCounter('hub.webhook.messages', { description: 'Webhook messages delivered or given up, by outcome' }),
    attemptDuration: meter.createHistogram('hub.webhook.attempt.duration.seconds', {
      unit: 's',
      description: 'One webhook delivery attempt',
      advice: { explicitBucketBoundaries: ATTEMPT_BUCKETS },
    }),
  };
  return instruments;
}
