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
 * The life of a long-running hub process: `start` brings it up and returns how to stop it;
 * SIGTERM / SIGINT stop it and exit 0; a failed start is one line on stderr and exit 1.
 */
export function runUntilSignal(name: string, start: () => Promise<() => Promise<void>>): void {
  start().then(
    (stop) => {
      const onSignal = () => void stop().then(() => process.exit(0));
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
    },
    (e: unknown) => {
      process.stderr.write(`${name} failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
