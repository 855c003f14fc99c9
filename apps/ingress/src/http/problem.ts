import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError, retryAfterSecondsOf, type DomainErrorCode } from '@hub/domain';
import { failRequestSpans } from '@hub/telemetry';
import { InvalidInputException } from './body-errors';

/** HTTP status of each domain error code (exhaustive: a new code must be placed here). */
export const HTTP_STATUS: Record<DomainErrorCode, number> = {
  INVALID_COMMAND: 400,
  SESSION_NOT_FOUND: 404,
  SESSION_BUSY: 409,
  NO_ACTIVE_TURN: 409,
  TURN_NOT_FOUND: 404,
  APPROVAL_NOT_FOUND: 404,
  APPROVAL_ALREADY_RESOLVED: 409,
  APPROVER_NOT_ALLOWED: 403,
  APPROVAL_REQUESTER_EXCLUDED: 403,
  APPROVAL_ALREADY_VOTED: 409,
  STREAM_VERSION_CONFLICT: 409,
  EVENT_TOO_LARGE: 413,
  INVALID_EVENT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  RATE_LIMITED: 429,
  CURSOR_OUT_OF_RANGE: 400,
  PROVIDER_AUTH: 502,
  PROVIDER_RATE_LIMIT: 503,
  PROVIDER_DOWN: 503,
  TIMEOUT: 504,
  INTERNAL: 500,
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  correlationId?: string;
  /** The refused field, for input the edge check refused (`$.params.text`). */
  path?: string;
  /** A fork refused at a cursor inside a turn: the nearest cursors it may be taken at. */
  nearestValidCursors?: number[];
  /** Every refused field of a refused document (an approval policy), each with its `at` path and message. */
  issues?: unknown[];
}

export function problemOf(e: unknown): Problem {
  if (e instanceof DomainError) {
    const status = HTTP_STATUS[e.code as DomainErrorCode];
    const nearest = e.details['nearestValidCursors'];
    const { path, issues } = e.details;
    return {
      type: `urn:hub:error:${e.code.toLowerCase()}`,
      title: e.code,
      status,
      detail: e.message,
      code: e.code,
      ...(Array.isArray(nearest) ? { nearestValidCursors: nearest as number[] } : {}),
      ...(typeof path === 'string' ? { path } : {}),
      ...(Array.isArray(issues) ? { issues } : {}),
    };
  }
  if (e instanceof InvalidInputException) {
    return { type: 'urn:hub:error:invalid_input', title: 'INVALID_INPUT', status: 400, detail: e.message, code: 'INVALID_INPUT', path: e.path };
  }
  if (e instanceof HttpException) {
    const status = e.getStatus();
    const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 404 ? 'NOT_FOUND' : `HTTP_${status}`;
    return { type: `urn:hub:error:${code.toLowerCase()}`, title: code, status, detail: e.message, code };
  }
  return { type: 'urn:hub:error:internal', title: 'INTERNAL', status: 500, detail: 'internal error', code: 'INTERNAL' };
}

/**
 * Marks the request's spans failed with the code its answer carries, whatever shape that answer
 * takes (problem+json, OpenHarness, Zene, OpenEnv): every exception filter calls it.
 */
export function traceFailure(e: unknown, code?: string): void {
  const p = problemOf(e);
  failRequestSpans(code ?? p.code, e instanceof Error ? e.message : p.detail);
}

/** Every HTTP error leaves as application/problem+json (RFC 9457). */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly log = new Logger('http');

  catch(e: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request & { correlationId?: string }>();
    const problem = { ...problemOf(e), correlationId: req.correlationId };
    traceFailure(e);
    if (problem.status >= 500) this.log.error(`${req.method} ${req.path}: ${(e as Error)?.stack ?? String(e)}`);
    if (res.headersSent) return;
    const retryAfterS = retryAfterSecondsOf(e);
    if (retryAfterS !== undefined) res.setHeader('Retry-After', String(retryAfterS));
    res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
  }
}
