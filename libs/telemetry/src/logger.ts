import pino, { type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { currentCorrelationId, currentTenantId } from './correlation';
import { currentSpanIds } from './spans';

export type { Logger };
/** Log levels, as in `LOG_LEVEL`. */
export type LogLevel = LevelWithSilent;

/** Paths pino replaces with `<redacted>`: credentials must never reach a log line. */
export const REDACTED_PATHS: readonly string[] = [
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  'apiKey',
  '*.apiKey',
  'auth',
  '*.auth',
  'password',
  '*.password',
  'token',
  '*.token',
];

/** Options for {@link createLogger}. */
export interface CreateLoggerOptions {
  /** Where JSON lines go; default stderr (fd 2), written synchronously so a crash loses nothing. */
  destination?: DestinationStream;
}

function contextFields(): Record<string, string> {
  const fields: Record<string, string> = {};
  const ids = currentSpanIds();
  if (ids !== undefined) {
    fields['trace_id'] = ids.traceId;
    fields['span_id'] = ids.spanId;
  }
  const correlationId = currentCorrelationId();
  if (correlationId !== undefined) fields['correlation_id'] = correlationId;
  const tenantId = currentTenantId();
  if (tenantId !== undefined) fields['tenant_id'] = tenantId;
  return fields;
}

/**
 * A JSON logger named `name`, writing to stderr: stdout is reserved for protocol lines in the
 * CLI's stdio modes. Each line carries `trace_id`, `span_id`, `correlation_id` and `tenant_id` of
 * the context it was logged in (where known), so logs and traces join on them.
 */
export function createLogger(name: string, level: LogLevel = 'info', options: CreateLoggerOptions = {}): Logger {
  return pino(
    {
      name,
      level,
      mixin: contextFields,
      redact: { paths: [...REDACTED_PATHS], censor: '<redacted>' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? pino.destination({ dest: 2, sync: true }),
  );
}
