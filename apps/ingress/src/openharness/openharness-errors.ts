import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isDomainError, retryAfterMsOf } from '@hub/domain';
import { checkText } from '@hub/protocol-input';
import { InvalidInputException, refusedBodyOf } from '../http/body-errors';
import { traceFailure } from '../http/problem';
import { echoOf, encodeError, wireError, wireErrorFromDomain, type Echo, type WireError, type WireReply } from '@hub/protocol-openharness';

const log = new Logger('openharness');

/** Writes a reply; the body is always OpenHarness JSON, whatever the status. */
export function sendReply(res: Response, reply: WireReply, correlationId?: string): void {
  if (correlationId) res.setHeader('X-Correlation-ID', correlationId);
  if (reply.retryAfterS !== undefined) res.setHeader('Retry-After', String(reply.retryAfterS));
  res.status(reply.httpStatus).type('application/json').send(JSON.stringify(reply.body));
}

function wireErrorOf(e: unknown): WireError {
  if (isDomainError(e)) return wireErrorFromDomain(e.code, e.message, retryAfterMsOf(e));
  if (e instanceof HttpException) {
    const status = e.getStatus();
    if (status === 413) return wireError('payload_too_large', 'The request body is larger than this engine accepts.', { details: { field: '(body)' } });
    if (status === 404) return wireError('not_found', 'No such route.');
    // The edge input check (http/body-errors.ts): depth, string size, NUL, unpaired surrogates.
    if (e instanceof InvalidInputException) return wireError('invalid_request', e.message, { details: { field: e.path.replace(/^\$\.?/, '') || '(body)' } });
    if (status < 500) return wireError('invalid_request', 'The request body is not valid JSON.', { details: { field: '(body)' } });
  }
  return wireError('internal_error', 'internal error');
}

/**
 * The ids to echo: from the parsed body, or from one the edge's input check refused (a 440 KB
 * inline attachment is still a request with ids), keeping only ids that pass the input rules
 * themselves (an id with NUL or a lone surrogate may be what was refused).
 */
function echoFor(req: Request): Echo {
  const echo = echoOf(req.body ?? refusedBodyOf(req));
  return Object.fromEntries(Object.entries(echo).filter(([k, v]) => typeof v === 'string' && checkText(v, k) === null));
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
    traceFailure(e);
    if (error.httpStatus >= 500) log.error(`${req.method} ${req.path}: ${(e as Error)?.stack ?? String(e)}`);
    if (!res.headersSent) sendReply(res, encodeError(error, echoFor(req)));
  }
}
