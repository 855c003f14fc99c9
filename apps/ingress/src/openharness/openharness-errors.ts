import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { AbstractHttpAdapter } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { isDomainError } from '@hub/domain';
import { echoOf, encodeError, wireError, wireErrorFromDomain, type WireError, type WireReply } from '@hub/protocol-openharness';

export const OPENHARNESS_PATH = '/v1/openharness';
const log = new Logger('openharness');

/** Writes a reply; the body is always OpenHarness JSON, whatever the status. */
export function sendReply(res: Response, reply: WireReply, correlationId?: string): void {
  if (correlationId) res.setHeader('X-Correlation-ID', correlationId);
  res.status(reply.httpStatus).type('application/json').send(JSON.stringify(reply.body));
}

function wireErrorOf(e: unknown): WireError {
  if (isDomainError(e)) return wireErrorFromDomain(e.code, e.message);
  if (e instanceof HttpException) {
    const status = e.getStatus();
    if (status === 413) return wireError('payload_too_large', 'The request body is larger than this engine accepts.');
    if (status === 404) return wireError('not_found', 'No such route.');
    if (status < 500) return wireError('invalid_request', 'The request body is not valid JSON.');
  }
  return wireError('internal_error', 'internal error');
}

/**
 * Errors raised around the controller (the API-key guard, anything unexpected) leave in the
 * OpenHarness error shape instead of problem+json. The ids are echoed when the body was parsed.
 */
@Catch()
export class OpenHarnessExceptionFilter implements ExceptionFilter {
  catch(e: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    const error = wireErrorOf(e);
    if (error.httpStatus >= 500) log.error(`${req.method} ${req.path}: ${(e as Error)?.stack ?? String(e)}`);
    if (!res.headersSent) sendReply(res, encodeError(error, echoOf(req.body)));
  }
}

/**
 * The JSON body parser runs before routing, so its errors (invalid JSON, a body over
 * HUB_MAX_BODY_BYTES) never reach a controller's filters: Nest hands them to the global ones
 * only. This express error handler, installed once routes exist and before Nest's own error
 * handler (i.e. from `onModuleInit`), answers them in the OpenHarness shape for this path only
 * and passes every other path on untouched.
 */
export function installBodyErrorHandler(adapter: AbstractHttpAdapter): void {
  adapter.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (req.path !== OPENHARNESS_PATH || res.headersSent) return next(err);
    const { status, limit } = err as { status?: unknown; limit?: unknown };
    const error =
      status === 413
        ? wireError('payload_too_large', 'The request body is larger than this engine accepts.', typeof limit === 'number' ? { details: { limit_bytes: limit } } : {})
        : typeof status === 'number' && status < 500
          ? wireError('invalid_request', 'The request body is not valid JSON.', { details: { field: '(body)' } })
          : null;
    if (!error) return next(err);
    sendReply(res, encodeError(error, {}));
  });
}
