import type { Logger } from './logger';

const NEST_BOOT_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'WebSocketsController', 'NestApplication']);

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * NestJS's `LoggerService` over the hub's pino logger, so Nest's own lines and every
 * `new Logger(context)` in our code come out as one JSON line each on stderr, at `LOG_LEVEL`,
 * with trace, span and correlation ids (before: coloured multi-line text that no log pipeline
 * could join to a trace). Structural: Nest accepts any object with these methods.
 */
export class NestPinoLogger {
  constructor(private readonly pino: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    // Nest's start-up chatter (every module, route and gateway mapped) is debug, not info.
    const context = rest.at(-1);
    this.write(typeof context === 'string' && NEST_BOOT_CONTEXTS.has(context) ? 'debug' : 'info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  /**
   * Nest calls `(message, context?)`, and for errors `(message, stack?, context?)`: the last
   * string is the context; a string before it on an error is the stack.
   */
  private write(level: Level, message: unknown, rest: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const strings = rest.filter((r): r is string => typeof r === 'string');
    const context = strings.length > 0 ? strings[strings.length - 1] : undefined;
    const stack = (level === 'error' || level === 'fatal') && strings.length > 1 ? strings[0] : undefined;
    const fields: Record<string, unknown> = { ...(context ? { context } : {}), ...(stack ? { stack } : {}) };
    if (message instanceof Error) this.pino[level]({ ...fields, err: { name: message.name, message: message.message, stack: message.stack } }, message.message);
    else if (typeof message === 'string') this.pino[level](fields, message);
    else if (isFact(message)) {
      // `{ msg, ...fields }`: one fact with its fields at the top level (the access log).
      const { msg, ...data } = message;
      this.pino[level]({ ...fields, ...data }, msg);
    } else this.pino[level]({ ...fields, data: message }, context ?? 'nest');
  }
}

function isFact(message: unknown): message is { msg: string } & Record<string, unknown> {
  return typeof message === 'object' && message !== null && typeof (message as { msg?: unknown }).msg === 'string';
}
