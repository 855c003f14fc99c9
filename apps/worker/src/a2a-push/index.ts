import { AddressGuard, parseSchedule } from '@hub/webhooks';
import type { Pool } from 'pg';
import type { WorkerSettings } from '../settings';
import { A2aPushService } from './service';

export { A2aPushService } from './service';

/** The worker's A2A push outbox and dispatcher, with the webhook settings (schedule, timeout, allowed networks, poll). */
export function a2aPushService(pool: Pool, settings: WorkerSettings, log: (message: string, error?: unknown) => void): A2aPushService {
  const w = settings.webhooks;
  return new A2aPushService(pool, {
    schedule: parseSchedule(w.retrySchedule),
    timeoutMs: w.timeoutMs,
    guard: AddressGuard.fromSetting(w.allowedNetworks),
    pollMs: w.pollMs,
    log,
  });
}
