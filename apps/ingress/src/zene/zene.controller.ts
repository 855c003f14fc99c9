import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Controller, Get, Inject, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Principal } from '@hub/auth';
import { ZENE_PROTOCOL_VERSION } from '@hub/protocol-zene';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { refusal, type ZeneLine, type ZeneMode } from './reply-writer';
import { failRequestSpans } from '@hub/telemetry';
import { decodeBody } from './request-body';
import { ZeneExceptionFilter } from './zene-exception.filter';
import { ZeneService } from './zene.service';
import { ApiTenantLimited } from '../limits/limits-openapi';
import { QueryParams } from '../http/query-params';

/** `POST /v1/zene`: the reply shape (anything but `protocol` is the bridge-compatible reply). */
const ZENE_QUERY = new QueryParams([
  { name: 'mode', description: '`protocol`: stream the v1 protocol lines as NDJSON; `bridge` (the default): one JSON reply', enum: ['bridge', 'protocol'] },
]);

/**
 * `POST /v1/zene[?mode=protocol]`: the zene host protocol over HTTP (one request line in; the
 * flat bridge-compat reply, or protocol-mode NDJSON lines as they happen). `GET /v1/zene/ping`
 * proves the key before a run (`hub host`'s preflight).
 */
@ApiTags('zene')
@Controller('v1/zene')
@UseFilters(ZeneExceptionFilter)
export class ZeneController {
  constructor(
    private readonly zene: ZeneService,
    @Inject(INGRESS_CONFIG) private readonly settings: IngressSettings,
  ) {}

  @ApiOperation({ summary: 'Zene ping' })
  @Get('ping')
  ping(@CurrentPrincipal() principal: Principal) {
    return { ok: true, protocol_version: ZENE_PROTOCOL_VERSION, key_prefix: principal.keyPrefix };
  }

  @ApiOperation({ summary: 'One Zene host-protocol request: one bridge-compatible JSON reply, or NDJSON protocol lines with ?mode=protocol' })
  @ZENE_QUERY.document()
  @ApiTenantLimited('zene `BUSY`, retryable')
  @Post()
  async post(
    @Req() req: Request & { correlationId?: string },
    @Res() res: Response,
    @CurrentPrincipal() principal: Principal,
    @Query('mode') mode?: string,
  ): Promise<void> {
    const call = { principal, correlationId: req.correlationId ?? 'unknown', receivedAt: Date.now() };
    const zeneMode: ZeneMode = mode === 'protocol' ? 'protocol' : 'bridge';
    const decoded = await decodeBody(req, this.settings.maxBodyBytes);
    if (!decoded.ok) {
      const { request_id, session_id, message } = decoded.error;
      const line = refusal(zeneMode, { request_id, session_id }, 'INVALID_REQUEST', message);
      failRequestSpans('INVALID_REQUEST', message);
      return void res
        .status(400)
        .set('Connection', 'close')
        .type('application/json')
        .send(`${JSON.stringify(line)}\n`);
    }
    res.status(200).type(zeneMode === 'protocol' ? 'application/x-ndjson' : 'application/json');
    const write = (line: ZeneLine) => {
      // A refusal or failure answered in the protocol's own shape is a failed request (issue 17).
      const failed = zeneError(line);
      if (failed) failRequestSpans(failed.code, failed.message);
      return res.write(`${JSON.stringify(line)}\n`);
    };
    // The status line goes out with the first line written: a refusal for a used-up limit comes first.
    const limited = (retryAfterS: number) => void (res.headersSent || res.status(429).set('Retry-After', String(retryAfterS)));
    await this.zene.handle(decoded.request, call, zeneMode, write, limited);
    res.end();
  }
}

/** The error a reply or line carries: the bridge reply's `error_code`, a line's `error`. */
function zeneError(line: ZeneLine): { code: string; message: string } | null {
  const l = line as { error_code?: string | null; error_message?: string | null; error?: { code: string; message: string } | null };
  if (l.error) return l.error;
  return l.error_code ? { code: l.error_code, message: l.error_message ?? l.error_code } : null;
}
