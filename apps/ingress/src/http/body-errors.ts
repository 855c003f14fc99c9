import { BadRequestException, CanActivate, ExecutionContext, HttpException, Injectable } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { checkInput, type InputProblem, type InputProblemKind } from '@hub/protocol-input';

type BodyError = { status?: number; type?: string; limit?: number; input?: InputProblem; refused?: unknown };
type WithBodyError = Request & { bodyError?: BodyError };

/**
 * A client value the edge refused (too deep, a string too large, NUL, an unpaired surrogate):
 * a 400 that each protocol's exception filter answers in its own validation shape, naming the
 * field by `path`.
 */
export class InvalidInputException extends BadRequestException {
  readonly kind: InputProblemKind;
  readonly path: string;

  constructor(problem: InputProblem, where: 'body' | 'query') {
    super(`${where} ${problem.message}`);
    this.kind = problem.kind;
    this.path = where === 'body' ? problem.path : problem.path.replace(/^\$/, '$query');
  }
}

/**
 * Wraps a body parser so that its failures (invalid JSON, a body over the limit) do not leave
 * through express's error path — which runs before routing, so no protocol could answer in its
 * own shape. The failure is parked on the request and raised by {@link BodyErrorGuard} inside
 * the route, where each protocol's exception filter sees it. A parsed body and the query string
 * also pass the one input check (`@hub/protocol-input`) here, before any route code (or any
 * recursive validator) sees them.
 */
export function deferBodyErrors(parser: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) =>
    parser(req, res, (err?: unknown) => {
      if (err) {
        (req as WithBodyError).bodyError = err as BodyError;
        req.body = undefined;
        return next();
      }
      const inBody = req.body === undefined ? null : checkInput(req.body);
      const inQuery = inBody ? null : checkInput(req.query);
      if (inBody || inQuery) {
        const input = (inBody ?? inQuery) as InputProblem;
        // The refused value must not reach anything that reads the body (handlers, logs); it is
        // parked for a protocol whose errors echo request ids (see refusedBodyOf).
        (req as WithBodyError).bodyError = { status: 400, type: inBody ? 'input.body' : 'input.query', input, refused: req.body };
        req.body = undefined;
      }
      next();
    });
}

/**
 * The parsed body the input check refused, for an error that echoes the request's ids (an
 * OpenHarness error echoes `request_id` and `correlation_id`, issue 27). Whoever reads it must
 * check each value it echoes against the input rules: the refused field may be one of them.
 */
export function refusedBodyOf(req: Request): unknown {
  return (req as WithBodyError).bodyError?.refused;
}

/** Raises a parked body-parser or input-check failure as 400 / 413 inside the route (after authentication). */
@Injectable()
export class BodyErrorGuard implements CanActivate {
  canActivate(ctx: ExecutionContext): boolean {
    if (ctx.getType() !== 'http') return true;
    const err = ctx.switchToHttp().getRequest<WithBodyError>().bodyError;
    if (!err) return true;
    if (err.input) throw new InvalidInputException(err.input, err.type === 'input.query' ? 'query' : 'body');
    if (err.status === 413) throw new HttpException(`request body over the limit of ${err.limit ?? '?'} bytes`, 413);
    throw new HttpException('request body is not valid JSON', 400);
  }
}
