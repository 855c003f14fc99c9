import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isDomainError, retryAfterSecondsOf } from '@hub/domain';
import { httpDetail } from '@hub/protocol-openenv';
import { InvalidInputException } from '../http/body-errors';
import { traceFailure } from '../http/problem';
import { OpenEnvRefusal } from './openenv-episodes';

const log = new Logger('openenv');

const REFUSAL_STATUS: Record<OpenEnvRefusal['kind'], number> = {
  not_found: 404,
  no_episode: 409,
  episode_done: 409,
  busy: 409,
  invalid: 400,
  unavailable: 503,
};

/** An error as OpenEnv's (FastAPI) server writes it: `{"detail": ...}` with the HTTP status. */
export function errorReply(e: unknown): { status: number; body: { detail: unknown } } {
  if (e instanceof OpenEnvRefusal) return { status: REFUSAL_STATUS[e.kind], body: httpDetail(e.message) };
  if (isDomainError(e) && e.code === 'UNAUTHENTICATED') return { status: 401, body: httpDetail(e.message) };
  // A key whose role may not (issue 16), or a client key on another key's session (not found to it).
  if (isDomainError(e) && e.code === 'FORBIDDEN') return { status: 403, body: httpDetail(e.message) };
  if (isDomainError(e) && e.code === 'SESSION_NOT_FOUND') return { status: 404, body: httpDetail(e.message) };
  if (isDomainError(e) && e.code === 'RATE_LIMITED') return { status: 429, body: httpDetail(e.message) };
  if (e instanceof HttpException) {
    const status = e.getStatus();
    // Body-parser failures arrive here through BodyErrorGuard (http/body-errors.ts).
    if (status === 413) return { status, body: httpDetail('Request body too large') };
    // The edge input check (http/body-errors.ts) answers as FastAPI's validation error does.
    if (e instanceof InvalidInputException) return { status: 422, body: { detail: [{ type: 'value_error', loc: ['body', e.path], msg: e.message }] } };
    if (status === 400) return { status: 422, body: { detail: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error' }] } };
    return { status, body: httpDetail(status === 401 ? 'missing, invalid or revoked API key: send Authorization: Bearer <key>' : e.message) };
  }
  return { status: 500, body: httpDetail('Internal Server Error') };
}

/** Everything raised around the OpenEnv controller leaves in OpenEnv's shape, not problem+json. */
@Catch()
export class OpenEnvExceptionFilter implements ExceptionFilter {
  catch(e: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    const { status, body } = errorReply(e);
    traceFailure(e, e instanceof OpenEnvRefusal ? `OPENENV_${e.kind.toUpperCase()}` : undefined);
    if (status >= 500) log.error(`${req.method} ${req.path}: ${(e as Error)?.stack ?? String(e)}`);
    if (res.headersSent) return;
    const retryAfterS = retryAfterSecondsOf(e);
    if (retryAfterS !== undefined) res.setHeader('Retry-After', String(retryAfterS));
    res.status(status).json(body);
  }
}
