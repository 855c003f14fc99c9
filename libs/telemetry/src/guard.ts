import { createLogger, type Logger } from './logger';

let guardLog: Logger | undefined;
const log = (): Logger => (guardLog ??= createLogger('guard'));

/**
 * Wraps an event listener so that nothing it throws (or rejects with) leaves it: an exception
 * out of an EventEmitter listener is uncaught and ends the process, dropping every socket of
 * every tenant on it (issue 11: one malformed upgrade URL took ingress down). The failure is
 * logged once, with `where`, and the emitter goes on with its other listeners.
 */
export function guarded<A extends unknown[]>(where: string, listener: (...args: A) => unknown): (...args: A) => void {
  const report = (e: unknown) => log().error({ where, err: errorFields(e) }, `listener failed: ${where}`);
  return (...args: A) => {
    try {
      const out = listener(...args);
      if (out instanceof Promise) out.catch(report);
    } catch (e) {
      report(e);
    }
  };
}

let installed = false;

/**
 * The process-level backstop every long-running hub process installs at boot.
 *
 * - A promise rejection nobody handled is logged and the process keeps serving: the rejected
 *   work is already over, and no state was left half-changed by a throw mid-function.
 * - An uncaught exception is logged and the process exits 1 for its supervisor to restart: after
 *   a throw of unknown origin, Node's own state (a parser, a half-written stream) is undefined,
 *   which is why our listeners are wrapped in {@link guarded} instead of relying on this.
 */
export function installProcessGuards(name: string): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) => {
    log().error({ process: name, err: errorFields(reason) }, 'unhandled promise rejection (process keeps serving)');
  });
  process.on('uncaughtException', (e) => {
    log().fatal({ process: name, err: errorFields(e) }, 'uncaught exception: exiting for the supervisor to restart');
    process.exit(1);
  });
}

function errorFields(e: unknown): { message: string; name?: string; stack?: string } {
  return e instanceof Error ? { name: e.name, message: e.message, stack: e.stack } : { message: String(e) };
}
