import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isDomainError } from '@hub/domain';
import { ZENE_CODE_OF_DOMAIN, type ZeneErrorCode } from '@hub/protocol-zene';
import { traceFailure } from '../http/problem';
import { refusal } from './reply-writer';

/**
 * Every failure of the zene routes in this protocol's own shape (a flat reply, or an `error`
 * line with `?mode=protocol`): a refused key is 401 `PROVIDER_AUTH`, anything unexpected 500
 * `INTERNAL` with no details. Invalid or oversized JSON bodies arrive here too (see
 * `http/body-errors.ts`), as `INVALID_REQUEST`.
 */
@Catch()
export class ZeneExceptionFilter implements ExceptionFilter {
  private readonly log = new Logger('zene');

  catch(e: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const [status, code, message] = classify(e);
    traceFailure(e);
    if (status >= 500) this.log.error(`${req.method} ${req.path}: ${(e as Error)?.stack ?? String(e)}`);
    if (res.headersSent) return void res.end();
    const body = (req.body ?? {}) as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' ? v : null);
    const ids = { request_id: text(body['request_id']) ?? 'unknown', session_id: text(body['session_id']) };
    const reply = refusal(req.query['mode'] === 'protocol' ? 'protocol' : 'bridge', ids, code, message);
    res
      .status(status)
      .type('application/json')
      .send(`${JSON.stringify(reply)}\n`);
  }
}

function classify(e: unknown): [number, ZeneErrorCode, string] {
  if (isDomainError(e)) {
    // Another key's session, to a client key (issue 16), is a bad request in zene's terms: 400 INVALID_REQUEST.
    const status = e.code === 'UNAUTHENTICATED' ? 401 : e.code === 'FORBIDDEN' ? 403 : e.code === 'SESSION_NOT_FOUND' ? 400 : 500;
    return [status, ZENE_CODE_OF_DOMAIN[e.code], status === 500 ? 'internal error' : e.message];
  }
  if (e instanceof HttpException && e.getStatus() < 500) return [e.getStatus(), 'INVALID_REQUEST', e.message];
  return [500, 'INTERNAL', 'internal error'];
}
