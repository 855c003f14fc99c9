import { Controller, Get, Inject, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Principal } from '@hub/auth';
import { ZENE_PROTOCOL_VERSION } from '@hub/protocol-zene';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { refusal, type ZeneLine, type ZeneMode } from './reply-writer';
import { decodeBody } from './request-body';
import { ZeneExceptionFilter } from './zene-exception.filter';
import { ZeneService } from './zene.service';

/**
 * `POST /v1/zene[?mode=protocol]`: the zene host protocol over HTTP (one request line in; the
 * flat bridge-compat reply, or protocol-mode NDJSON lines as they happen). `GET /v1/zene/ping`
 * proves the key before a run (`hub host`'s preflight).
 */
@Controller('v1/zene')
@UseFilters(ZeneExceptionFilter)
export class ZeneController {
  constructor(
    private readonly zene: ZeneService,
    @Inject(INGRESS_CONFIG) private readonly settings: IngressSettings,
  ) {}

  @Get('ping')
  ping(@CurrentPrincipal() principal: Principal) {
    return { ok: true, protocol_version: ZENE_PROTOCOL_VERSION, key_prefix: principal.keyPrefix };
  }

  @Post()
  async post(@Req() req: Request & { correlationId?: string }, @Res() res: Response, @CurrentPrincipal() principal: Principal, @Query('mode') mode?: string): Promise<void> {
    const call = { principal, correlationId: req.correlationId ?? 'unknown', receivedAt: Date.now() };
    const zeneMode: ZeneMode = mode === 'protocol' ? 'protocol' : 'bridge';
    const decoded = await decodeBody(req, this.settings.maxBodyBytes);
    if (!decoded.ok) {
      const { request_id, session_id, message } = decoded.error;
      const line = refusal(zeneMode, { request_id, session_id }, 'INVALID_REQUEST', message);
      return void res.status(400).set('Connection', 'close').type('application/json').send(`${JSON.stringify(line)}\n`);
    }
    res.status(200).type(zeneMode === 'protocol' ? 'application/x-ndjson' : 'application/json');
    const write = (line: ZeneLine) => res.write(`${JSON.stringify(line)}\n`);
    await this.zene.handle(decoded.request, call, zeneMode, write);
    res.end();
  }
}
