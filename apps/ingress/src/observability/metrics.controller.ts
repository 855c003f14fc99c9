import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { serveMetrics } from '@hub/telemetry';
import { Public } from '../auth/public.decorator';

/** `GET /metrics`: Prometheus text format (OpenTelemetry metrics; see docs/adr/0014). No key, like /health. */
@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  @Public()
  @ApiOperation({ summary: 'Prometheus metrics (text exposition format); no key', security: [] })
  @Get()
  metrics(@Req() req: Request, @Res() res: Response): void {
    serveMetrics(req, res);
  }
}
