import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { correlationIdFrom, runWithCorrelation, withRequestTrace } from '@hub/telemetry';

/**
 * Takes `X-Correlation-ID` (else makes one), echoes it, and runs the rest of the request with
 * it, in the caller's trace: under the HTTP instrumentation's server span when there is one (it
 * read `traceparent` itself; replacing its context would orphan every span of the request), else
 * under the caller's `traceparent`.
 */
@Injectable()
export class CorrelationMiddleware implements NestMiddleware {
  use(req: Request & { correlationId?: string }, res: Response, next: NextFunction): void {
    const correlationId = correlationIdFrom(req.header('x-correlation-id'));
    req.correlationId = correlationId;
    res.setHeader('X-Correlation-ID', correlationId);
    withRequestTrace({ traceparent: req.header('traceparent'), tracestate: req.header('tracestate') }, () => runWithCorrelation(correlationId, next));
  }
}
