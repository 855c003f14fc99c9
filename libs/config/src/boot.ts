import { ConfigError } from './errors';

/**
 * Runs a settings loader at boot; a bad configuration prints its message (every bad variable,
 * named) and exits 2 instead of leaving a stack trace.
 */
export function settingsOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (e) {
    process.stderr.write(`${e instanceof ConfigError ? e.message : String(e)}\n`);
    process.exit(2);
  }
}

/**
 * How long a stop may take once a signal came: below an orchestrator's usual grace period
 * (Kubernetes' 30 s, Compose's `stop_grace_period: 30s`), so a process that cannot stop cleanly
 * says so and exits itself rather than being killed without a word. A worker whose Redis is gone
 * waited forever in its queue's close (measured with Redis killed: no exit in 40 s).
 */
export const STOP_WITHIN_MS = 25_000;

/**
 * The life of a long-running hub process: `start` brings it up and returns how to stop it;
 * SIGTERM / SIGINT stop it and exit 0. A stop that fails, or does not end within `stopWithinMs`,
 * is one line on stderr and exit 1; a second signal exits at once. A failed start is one line on
 * stderr and exit 1.
 */
export function runUntilSignal(name: string, start: () => Promise<() => Promise<void>>, opts: { stopWithinMs?: number } = {}): void {
  const stopWithinMs = opts.stopWithinMs ?? STOP_WITHIN_MS;
  start().then(
    (stop) => {
      let stopping = false;
      const onSignal = (signal: NodeJS.Signals) => {
        if (stopping) {
          process.stderr.write(`${name}: ${signal} while stopping: exiting now\n`);
          process.exit(1);
        }
        stopping = true;
        setTimeout(() => {
          process.stderr.write(`${name}: did not stop within ${stopWithinMs} ms of ${signal}: exiting\n`);
          process.exit(1);
        }, stopWithinMs).unref();
        stop().then(
          () => process.exit(0),
          (e: unknown) => {
            process.stderr.write(`${name}: stop failed: ${e instanceof Error ? e.message : String(e)}\n`);
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
    },
    (e: unknown) => {
      process.stderr.write(`${name} failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
