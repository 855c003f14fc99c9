import { ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Principal } from '@hub/auth';
import { decodeRun } from '@hub/protocol-ag-ui';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { ApiTenantLimited } from '../limits/limits-openapi';
import { AgUiExceptionFilter, AgUiRefusal } from './ag-ui-errors';
import { AgUiRuns, lastEventIdOf } from './ag-ui.runs';

/**
 * `POST /v1/ag-ui` — one AG-UI run (`@ag-ui/core` 1.0.0): a RunAgentInput in, its events out
 * as Server-Sent Events. `threadId` is the hub session, `runId` the turn (docs/protocols/ag-ui.md).
 */
@ApiTags('ag-ui')
@Controller('v1/ag-ui')
@UseFilters(AgUiExceptionFilter)
export class AgUiController {
  constructor(private readonly runs: AgUiRuns) {}

  @ApiOperation({ summary: 'One AG-UI run: a RunAgentInput, answered by its events (SSE); Last-Event-ID resumes after a cursor' })
  @ApiProduces('text/event-stream')
  @ApiTenantLimited()
  @Post()
  async run(@Body() body: unknown, @CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    const decoded = decodeRun(body);
    if (!decoded.ok) throw new AgUiRefusal(decoded.error);
    await this.runs.run(decoded.request, principal, req, res, lastEventIdOf(req));
  }
}
