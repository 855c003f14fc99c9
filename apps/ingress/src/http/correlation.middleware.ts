import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { contextFromTraceparent, correlationIdFrom, runWithCorrelation, withContext } from '@hub/telemetry';

/**
 * Takes `X-Correlation-ID` (else makes one), echoes it, and runs the rest of the request with
 * it — and with the caller's `traceparent`, when sent — as the active context.
 */
@Injectable()
export class CorrelationMiddleware implements NestMiddleware {
  use(req: Request & { correlationId?: string }, res: Response, next: NextFunction): void {
    const correlationId = correlationIdFrom(req.header('x-correlation-id'));
    req.correlationId = correlationId;
    res.setHeader('X-Correlation-ID', correlationId);
    const parent = contextFromTraceparent(req.header('traceparent'), req.header('tracestate'));
    withContext(parent, () => runWithCorrelation(correlationId, next));
  }
}
