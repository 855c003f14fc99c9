import { AddressGuard, WebhookService, parseSchedule } from '@hub/webhooks';
import type { Pool } from 'pg';
import type { WorkerSettings } from './settings';

/** The worker's webhook outbox and dispatcher (issue 28), on the worker's main pool: an attempt in flight holds no connection. */
export function webhookService(pool: Pool, settings: WorkerSettings, log: (message: string, error?: unknown) => void): WebhookService {
  const w = settings.webhooks;
  return new WebhookService(pool, {
    publicUrl: w.publicUrl,
    linkTtlMs: w.linkTtlMs,
    schedule: parseSchedule(w.retrySchedule),
    timeoutMs: w.timeoutMs,
    guard: AddressGuard.fromSetting(w.allowedNetworks),
    perEndpoint: w.perEndpoint,
    disableAfterMs: w.disableAfterMs,
    pollMs: w.pollMs,
    log,
  });
}
