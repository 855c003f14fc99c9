/**
 * The environment a tenant-configured child process (a wrapped harness) starts from: only what a
 * program needs to run (PATH, HOME, locale, temp dir), never the hub's own settings — database
 * URLs and model API keys stay in the hub. The harness's `env_vars` are added on top.
 */
const PASSED = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SystemRoot'] as const;

export function childProcessBaseEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of PASSED) {
    const v = env[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}
