import { WorkerConfig, childProcessBaseEnv, parseConfig, serviceSettings, type ServiceSettings } from '@hub/config';

/** What the worker reads from its environment, parsed once at boot (the shared part: `serviceSettings`). */
export interface WorkerSettings extends ServiceSettings {
  concurrency: number;
  lockMs: number;
  healthPort: number;
  model: { provider: 'offline' | 'openai' | 'anthropic'; model?: string; baseUrl?: string; apiKey?: string; offlineDelayMs: number };
  maxSteps: number;
  approvalTtlMs: number;
  /** What a wrapped harness process starts from (PATH, HOME, ...): never the hub's own settings. */
  harnessBaseEnv: Record<string, string>;
}

export function loadWorkerSettings(env?: NodeJS.ProcessEnv): WorkerSettings {
  const c = parseConfig(WorkerConfig, env);
  return {
    ...serviceSettings(c),
    concurrency: c.HUB_WORKER_CONCURRENCY,
    lockMs: c.HUB_WORKER_LOCK_MS,
    healthPort: c.HUB_WORKER_HEALTH_PORT,
    model: { provider: c.HUB_MODEL_PROVIDER, model: c.HUB_MODEL, baseUrl: c.HUB_MODEL_BASE_URL, apiKey: c.HUB_MODEL_API_KEY, offlineDelayMs: c.HUB_OFFLINE_DELAY_MS },
    maxSteps: c.HUB_MAX_STEPS,
    approvalTtlMs: c.HUB_APPROVAL_TTL_MS,
    harnessBaseEnv: childProcessBaseEnv(env),
  };
}
