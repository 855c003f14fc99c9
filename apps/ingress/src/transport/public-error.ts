import type { Logger } from '@nestjs/common';
import { isDomainError, namesInfrastructure, type DomainErrorCode } from '@hub/domain';

/** Domain failures whose messages may quote a provider, a driver or a queue library. */
const OPAQUE_CODES: ReadonlySet<DomainErrorCode> = new Set(['INTERNAL', 'INVALID_EVENT', 'PROVIDER_AUTH', 'PROVIDER_RATE_LIMIT', 'PROVIDER_DOWN']);

/**
 * Whether an error's message was written for a client: a domain error of a client-facing code,
 * or one of our own plain errors. A driver's, the OS's (`code`/`errno`/`syscall`), Prisma's or
 * anything quoting an address is not.
 */
export function isClientFacing(e: unknown): e is Error {
  if (isDomainError(e)) return !OPAQUE_CODES.has(e.code) && !namesInfrastructure(e.message);
  if (!(e instanceof Error) || e instanceof AggregateError) return false;
  const fields = e as Error & { code?: unknown; errno?: unknown; syscall?: unknown };
  if (fields.code !== undefined || fields.errno !== undefined || fields.syscall !== undefined) return false;
  return !e.name.startsWith('Prisma') && !namesInfrastructure(e.message);
}

/**
 * The message a WebSocket error frame may carry for `e` (issue 11, defect 9): its own when
 * client-facing; otherwise "internal error" with the correlation id, and the whole error goes to
 * the server log under that id, so an operator can find what the client saw.
 */
export function publicErrorMessage(e: unknown, log: Pick<Logger, 'error'>, what: string, correlationId: string): string {
  if (isClientFacing(e)) return e.message;
  log.error(`${what} failed (correlation id ${correlationId}): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  return `internal error (correlation id ${correlationId})`;
}
