import { CanActivate, ExecutionContext, HttpException, Injectable } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

type BodyError = { status?: number; type?: string; limit?: number };
type WithBodyError = Request & { bodyError?: BodyError };

/**
 * Wraps a body parser so that its failures (invalid JSON, a body over the limit) do not leave
 * through express's error path — which runs before routing, so no protocol could answer in its
 * own shape. The failure is parked on the request and raised by {@link BodyErrorGuard} inside
 * the route, where each protocol's exception filter sees it.
 */
export function deferBodyErrors(parser: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) =>
    parser(req, res, (err?: unknown) => {
      if (err) {
        (req as WithBodyError).bodyError = err as BodyError;
        req.body = undefined;
      }
      next();
    });
}

/** Raises a parked body-parser failure as 400 / 413 inside the route (after authentication). */
@Injectable()
export class BodyErrorGuard implements CanActivate {
  canActivate(ctx: ExecutionContext): boolean {
    if (ctx.getType() !== 'http') return true;
    const err = ctx.switchToHttp().getRequest<WithBodyError>().bodyError;
    if (!err) return true;
    if (err.status === 413) throw new HttpException(`request body over the limit of ${err.limit ?? '?'} bytes`, 413);
    throw new HttpException('request body is not valid JSON', 400);
  }
}
