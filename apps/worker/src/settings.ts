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
    model: { provider: c.HUB_MODEL_PROVIDER, model: c.HUB_MODEL, baseUrl: c.HUB_MODEL_BASE_URL, apiKey: c.HUB_MODEL_API_KEY, offlineDelayMs: c.HUB_OFFLINE_DELAY_MS },
    maxSteps: c.HUB_MAX_STEPS,
    approvalTtlMs: c.HUB_APPROVAL_TTL_MS,
    // The size cap only bounds one event's size; the window is what users tune.
    flush: { maxChars: TEXT_FLUSH_MAX_CHARS, baseMs: c.HUB_TEXT_FLUSH_MS, maxMs: c.HUB_TEXT_FLUSH_MAX_MS },
    harnessBaseEnv: childProcessBaseEnv(env),
  };
}

/** Largest text one delta carries before it is written regardless of its window. */
const TEXT_FLUSH_MAX_CHARS = 8192;
