import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isDomainError } from '@hub/domain';
import { a2aError, a2aErrorFromDomain, encodeError, idOf, type A2aError, type WireError } from '@hub/protocol-a2a';
import { checkText } from '@hub/protocol-input';
import { InvalidInputException, refusedBodyOf } from '../http/body-errors';
import { traceFailure } from '../http/problem';

const log = new Logger('a2a');

/** Writes a JSON-RPC error response (the body is JSON-RPC whatever the HTTP status). */
export function sendError(res: Response, wire: WireError, httpStatus = wire.httpStatus): void {
  if (wire.retryAfterS !== undefined) res.setHeader('Retry-After', String(wire.retryAfterS));
  // RFC 6750: a refused bearer token says which scheme to use; the SDK's auth handler reads it.
  if (httpStatus === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="harness-hub"');
  res.status(httpStatus).type('application/json').send(JSON.stringify(wire.body));
}

/** What a thrown error is on the A2A wire, and the HTTP status it leaves with (when not the kind's own). */
export function a2aErrorOf(e: unknown): { error: A2aError; httpStatus?: number } {
  if (isDomainError(e)) return { error: a2aErrorFromDomain(e.code, e.message, e.details) };
  if (e instanceof HttpException) {
    const status = e.getStatus();
    if (status === 413)
      return { error: a2aError('INVALID_REQUEST', 'the request body is larger than this agent accepts', { field: '(body)' }), httpStatus: 413 };
    if (status === 404) return { error: a2aError('METHOD_NOT_FOUND', 'no such route: the JSON-RPC endpoint is POST /v1/a2a'), httpStatus: 404 };
    // The edge input check (http/body-errors.ts): depth, string size, NUL, unpaired surrogates.
    if (e instanceof InvalidInputException) return { error: a2aError('INVALID_REQUEST', `Invalid Request: ${e.message}`, { field: e.path }) };
    if (status < 500) return { error: a2aError('PARSE_ERROR', 'Parse error: the body is not valid JSON') };
  }
  return { error: a2aError('INTERNAL_ERROR', 'internal error') };
}

/**
 * The id to echo: from the parsed body, or from one the edge's input check refused (a request
 * with a 900 KB string is still a request with an id), unless the id itself breaks the rules.
 */
function requestIdOf(req: Request) {
  const id = idOf(req.body ?? refusedBodyOf(req));
  return typeof id === 'string' && checkText(id, 'id') !== null ? null : id;
}

/**
 * Errors raised around the controller (the API-key guard, the body parser, the input check,
 * anything unexpected) leave as JSON-RPC errors, never problem+json: an A2A client reads only
 * those. The request id is echoed when the body was parsed.
 */
@Catch()
export class A2aExceptionFilter implements ExceptionFilter {
  catch(e: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    const { error, httpStatus } = a2aErrorOf(e);
    traceFailure(e, error.kind);
    if (error.kind === 'INTERNAL_ERROR') log.error(`${req.method} ${req.path}: ${(e as Error)?.stack ?? String(e)}`);
    if (res.headersSent) return void res.end();
    const wire = encodeError(error, requestIdOf(req));
    sendError(res, wire, httpStatus);
  }
}
