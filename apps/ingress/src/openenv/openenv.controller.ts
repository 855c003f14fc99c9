import { Body, Controller, Get, HttpCode, Inject, OnModuleInit, Param, Post, Put, Query, Req, Res, UseFilters } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import { actorOf, type Principal } from '@hub/auth';
import { decodeReset, decodeStep, environmentSchema } from '@hub/protocol-openenv';
import { correlationIdFrom } from '@hub/telemetry';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { checkEnvironment, envName } from './environment-config';
import { OpenEnvExceptionFilter } from './openenv-errors';
import { OpenEnvEpisodes } from './openenv-episodes';
import { OpenEnvMcp, OpenEnvMcpFilter } from './openenv-mcp';
import { installUpgradeRoutes } from './openenv-upgrade';

const correlation = (req: Request) => correlationIdFrom(req.header('x-correlation-id'));

/**
 * OpenEnv's server API for one environment of the caller's tenant, under `/v1/openenv/<env>`
 * (so an OpenEnv client's `base_url` points there): reset, step, state, health, metadata,
 * schema and mcp, plus the environment's configuration and an episode's trajectory. See
 * libs/protocol/openenv/README.md.
 */
@Controller('v1/openenv/:env')
@UseFilters(OpenEnvExceptionFilter)
export class OpenEnvController implements OnModuleInit {
  constructor(
    private readonly episodes: OpenEnvEpisodes,
    private readonly mcp: OpenEnvMcp,
    private readonly http: HttpAdapterHost,
    @Inject(INGRESS_CONFIG) private readonly settings: IngressSettings,
  ) {}

  onModuleInit(): void {
    installUpgradeRoutes(this.http.httpAdapter.getHttpServer());
  }

  @Put()
  async configure(@Param('env') env: string, @Body() body: unknown, @CurrentPrincipal() p: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    const checked = await checkEnvironment(body, {
      harness: this.settings.harnessAllowlist,
      mcp: { stdio: this.settings.mcpStdioAllowlist, http: this.settings.mcpHttpAllowlist },
    });
    if (!checked.ok) return void res.status(422).json({ detail: checked.detail });
    await this.episodes.registry.put(p.tenantId, envName(env), checked.config, actorOf(p), correlation(req));
    res.status(200).json({ name: env, config: checked.config });
  }

  @Get()
  async config(@Param('env') env: string, @CurrentPrincipal() p: Principal) {
    return { name: env, config: await this.episodes.environment(p.tenantId, envName(env)) };
  }

  @Post('reset')
  @HttpCode(200)
  async reset(@Param('env') env: string, @Body() body: unknown, @CurrentPrincipal() p: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    const d = decodeReset(body);
    if (!d.ok) return void res.status(422).json({ detail: d.detail });
    const { result } = await this.episodes.reset(p, envName(env), { episodeId: d.value.episode_id, seed: d.value.seed }, correlation(req));
    res.status(200).json(result);
  }

  @Post('step')
  async step(@Param('env') env: string, @Body() body: unknown, @CurrentPrincipal() p: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    const d = decodeStep(body);
    if (!d.ok) return void res.status(422).json({ detail: d.detail });
    const episodeId = typeof d.value.request['episode_id'] === 'string' ? d.value.request['episode_id'] : null;
    const opts = { episodeId, timeoutS: d.value.request.timeout_s, requestId: d.value.request.request_id };
    res.status(200).json(await this.episodes.step(p, envName(env), d.value.action, opts, correlation(req)));
  }

  @Get('state')
  state(@Param('env') env: string, @CurrentPrincipal() p: Principal) {
    return this.episodes.state(p.tenantId, envName(env));
  }

  /** JSON-RPC 2.0 over the environment's MCP tools; always HTTP 200 once the environment exists. */
  @Post('mcp')
  @HttpCode(200)
  @UseFilters(OpenEnvMcpFilter)
  mcpRequest(@Param('env') env: string, @Body() body: unknown, @CurrentPrincipal() p: Principal) {
    return this.mcp.answer(p.tenantId, envName(env), body);
  }

  @Get('trajectory')
  trajectory(@Param('env') env: string, @Query('episode_id') episodeId: string | undefined, @CurrentPrincipal() p: Principal) {
    return this.episodes.trajectory(p.tenantId, envName(env), episodeId);
  }

  @Get('health')
  async health(@Param('env') env: string, @CurrentPrincipal() p: Principal) {
    await this.episodes.environment(p.tenantId, envName(env));
    return { status: 'healthy' };
  }

  @Get('metadata')
  async metadata(@Param('env') env: string, @CurrentPrincipal() p: Principal) {
    const c = await this.episodes.environment(p.tenantId, envName(env));
    return { name: env, description: c.description || `Harness environment ${env} (${c.harness.name}, ${c.harness.kind})`, readme_content: null, version: null, author: null, documentation_url: null };
  }

  @Get('schema')
  async schema(@Param('env') env: string, @CurrentPrincipal() p: Principal) {
    await this.episodes.environment(p.tenantId, envName(env));
    return environmentSchema();
  }
}
