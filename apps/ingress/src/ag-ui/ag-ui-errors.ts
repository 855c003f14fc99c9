import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { AgUiInputError } from '@hub/protocol-ag-ui';
import { ProblemFilter, traceFailure } from '../http/problem';

/** A RunAgentInput refused before its stream opened (see `@hub/protocol-ag-ui` errors). */
export class AgUiRefusal extends HttpException {
  constructor(readonly refusal: AgUiInputError) {
    super(refusal.message, refusal.status);
  }
}

/**
 * AG-UI answers a refused run as problem+json, like every HTTP route of the hub: the code, the
 * message and the refused field (`path`). Everything else goes to the hub's ProblemFilter. Once
 * the stream is open, failures are AG-UI events (RUN_ERROR) instead.
 */
@Catch()
export class AgUiExceptionFilter implements ExceptionFilter {
  private readonly problems = new ProblemFilter();

  catch(e: unknown, host: ArgumentsHost): void {
    if (!(e instanceof AgUiRefusal)) return this.problems.catch(e, host);
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request & { correlationId?: string }>();
    const { code, status, message, path } = e.refusal;
    traceFailure(e, code);
    if (res.headersSent) return;
    const problem = { type: `urn:hub:error:${code.toLowerCase()}`, title: code, status, detail: message, code, path, correlationId: req.correlationId };
    res.status(status).type('application/problem+json').send(JSON.stringify(problem));
  }
}
