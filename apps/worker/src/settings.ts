import { WorkerConfig, childProcessBaseEnv, parseConfig, serviceSettings, type ServiceSettings } from '@hub/config';

/** What the worker reads from its environment, parsed once at boot (the shared part: `serviceSettings`). */
export interface WorkerSettings extends ServiceSettings {
  concurrency: number;
  /** Turn slots a tenant below its share may borrow beyond `concurrency` (`HUB_WORKER_BURST_SLOTS`). */
  burstSlots: number;
  lockMs: number;
  /** How often the reconciler looks for turns Redis lost (`HUB_RECONCILE_INTERVAL_MS`). */
  reconcileIntervalMs: number;
  healthPort: number;
  model: { provider: 'offline' | 'openai' | 'anthropic'; model?: string; baseUrl?: string; apiKey?: string; offlineDelayMs: number };
  maxSteps: number;
  approvalTtlMs: number;
  /**
   * Streamed text: one delta per window, or per `maxChars`; the window is `baseMs`
   * (`HUB_TEXT_FLUSH_MS`) for a stream alone and grows to `maxMs` (`HUB_TEXT_FLUSH_MAX_MS`) in a crowd.
   */
  flush: { maxChars: number; baseMs: number; maxMs: number };
  /** What a wrapped harness process starts from (PATH, HOME, ...): never the hub's own settings. */
  harnessBaseEnv: Record<string, string>;
  /** Webhook deliveries and approval links (issue 28; `HUB_WEBHOOK_*`, `HUB_PUBLIC_URL`, `HUB_APPROVAL_LINK_TTL_MS`). */
  webhooks: {
    publicUrl: string;
    retrySchedule: string;
    timeoutMs: number;
    pollMs: number;
    perEndpoint: number;
    disableAfterMs: number;
    linkTtlMs: number;
    allowedNetworks?: string;
  };
}

export function loadWorkerSettings(env?: NodeJS.ProcessEnv): WorkerSettings {
  const c = parseConfig(WorkerConfig, env);
  return {
    ...serviceSettings(c),
    concurrency: c.HUB_WORKER_CONCURRENCY,
    burstSlots: c.HUB_WORKER_BURST_SLOTS === -1 ? Math.ceil(c.HUB_WORKER_CONCURRENCY / 2) : c.HUB_WORKER_BURST_SLOTS,
    lockMs: c.HUB_WORKER_LOCK_MS,
    reconcileIntervalMs: c.HUB_RECONCILE_INTERVAL_MS,
    healthPort: c.HUB_WORKER_HEALTH_PORT,
    model: {
      provider: c.HUB_MODEL_PROVIDER,
      model: c.HUB_MODEL,
      baseUrl: c.HUB_MODEL_BASE_URL,
      apiKey: c.HUB_MODEL_API_KEY,
      offlineDelayMs: c.HUB_OFFLINE_DELAY_MS,
    },
    maxSteps: c.HUB_MAX_STEPS,
    approvalTtlMs: c.HUB_APPROVAL_TTL_MS,
    // The size cap only bounds one event's size; the window is what users tune.
    flush: { maxChars: TEXT_FLUSH_MAX_CHARS, baseMs: c.HUB_TEXT_FLUSH_MS, maxMs: c.HUB_TEXT_FLUSH_MAX_MS },
    harnessBaseEnv: childProcessBaseEnv(env),
    webhooks: {
      publicUrl: c.HUB_PUBLIC_URL,
      retrySchedule: c.HUB_WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: c.HUB_WEBHOOK_TIMEOUT_MS,
      pollMs: c.HUB_WEBHOOK_POLL_MS,
      perEndpoint: c.HUB_WEBHOOK_ENDPOINT_CONCURRENCY,
      disableAfterMs: c.HUB_WEBHOOK_DISABLE_AFTER_MS,
      linkTtlMs: c.HUB_APPROVAL_LINK_TTL_MS,
      allowedNetworks: c.HUB_WEBHOOK_ALLOWED_NETWORKS,
    },
  };
}

/** Largest text one delta carries before it is written regardless of its window. */
const TEXT_FLUSH_MAX_CHARS = 8192;
