import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Get, HttpCode, Inject, OnModuleInit, Param, Post, Put, Query, Req, Res, UseFilters } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import { actorOf, type Principal } from '@hub/auth';
import { SecretStore, UnknownSecretError } from '@hub/event-store';
import { decodeReset, decodeStep, environmentSchema } from '@hub/protocol-openenv';
import { correlationIdFrom } from '@hub/telemetry';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { checkEnvironment, envName, sealEnvironment } from './environment-config';
import { OpenEnvExceptionFilter } from './openenv-errors';
import { OpenEnvEpisodes } from './openenv-episodes';
import { OpenEnvMcp, OpenEnvMcpFilter } from './openenv-mcp';
import { installUpgradeRoutes } from './openenv-upgrade';
import { ApiTenantLimited } from '../limits/limits-openapi';
import { QueryParams } from '../http/query-params';

const correlation = (req: Request) => correlationIdFrom(req.header('x-correlation-id'));

/** `GET /v1/openenv/ENV/trajectory`. */
const TRAJECTORY_QUERY = new QueryParams([{ name: 'episode_id', description: "The episode's id; without it, the environment's latest episode" }]);

/**
 * OpenEnv's server API for one environment of the caller's tenant, under `/v1/openenv/<env>`
 * (so an OpenEnv client's `base_url` points there): reset, step, state, health, metadata,
 * schema and mcp, plus the environment's configuration and an episode's trajectory. See
 * libs/protocol/openenv/README.md.
 */
@ApiTags('openenv')
@Controller('v1/openenv/:env')
@UseFilters(OpenEnvExceptionFilter)
export class OpenEnvController implements OnModuleInit {
  constructor(
    private readonly episodes: OpenEnvEpisodes,
    private readonly mcp: OpenEnvMcp,
    private readonly http: HttpAdapterHost,
    private readonly secrets: SecretStore,
    @Inject(INGRESS_CONFIG) private readonly settings: IngressSettings,
  ) {}

  onModuleInit(): void {
    installUpgradeRoutes(this.http.httpAdapter.getHttpServer());
  }

  @ApiOperation({ summary: 'Configure an environment (allowlisted MCP servers, harness, rubric) for this tenant' })
  @Put()
  async configure(
    @Param('env') env: string,
    @Body() body: unknown,
    @CurrentPrincipal() p: Principal,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    // Environments name the harness commands and MCP servers turns run with: administration.
    if (p.role !== 'admin') return void res.status(403).json({ detail: `configuring an environment needs an admin key; this key's role is ${p.role}` });
    const checked = await checkEnvironment(
      body,
      { harness: this.settings.harnessAllowlist, mcp: { stdio: this.settings.mcpStdioAllowlist, http: this.settings.mcpHttpAllowlist } },
      (vars) => this.secrets.open(p.tenantId, vars),
    );
    if (!checked.ok) return void res.status(422).json({ detail: checked.detail });
    // Environment values go to the secret store; the log and every answer carry references.
    let config: typeof checked.config;
    try {
      config = await sealEnvironment(checked.config, (vars) => this.secrets.seal(p.tenantId, vars));
    } catch (e) {
      if (e instanceof UnknownSecretError)
        return void res.status(422).json({ detail: [{ type: 'value_error', loc: ['body', 'env', e.variable], msg: e.message }] });
      throw e;
    }
    await this.episodes.registry.put(p.tenantId, envName(env), config, actorOf(p), correlation(req));
    res.status(200).json({ name: env, config });
  }

  @ApiOperation({ summary: "The environment's configuration (secrets as hub-secret references)" })
  @Get()
  async config(@Param('env') env: string, @CurrentPrincipal() p: Principal) {
    return { name: env, config: await this.episodes.environment(p.tenantId, envName(env)) };
  }

  @ApiOperation({ summary: 'Start an episode (OpenEnv reset); returns the first observation' })
  @ApiTenantLimited('OpenEnv `{"detail"}`')
  @Post('reset')
  @HttpCode(200)
  async reset(@Param('env') env: string, @Body() body: unknown, @CurrentPrincipal() p: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    const d = decodeReset(body);
    if (!d.ok) return void res.status(422).json({ detail: d.detail });
    const { result } = await this.episodes.reset(p, envName(env), { episodeId: d.value.episode_id, seed: d.value.seed }, correlation(req));
    res.status(200).json(result);
  }

  @ApiOperation({ summary: 'One step of an episode (OpenEnv step): an action in, observation, reward and done out' })
  @ApiTenantLimited('OpenEnv `{"detail"}`')
  @Post('step')
  async step(@Param('env') env: string, @Body() body: unknown, @CurrentPrincipal() p: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    const d = decodeStep(body);
    if (!d.ok) return void res.status(422).json({ detail: d.detail });
    const episodeId = typeof d.value.request['episode_id'] === 'string' ? d.value.request['episode_id'] : null;
    const opts = { episodeId, timeoutS: d.value.request.timeout_s, requestId: d.value.request.request_id };
    res.status(200).json(await this.episodes.step(p, envName(env), d.value.action, opts, correlation(req)));
  }

  @ApiOperation({ summary: "The episode's state" })
  @Get('state')
  state(@Param('env') env: string, @CurrentPrincipal() p: Principal) {
    return this.episodes.state(p, envName(env));
  }

  /** JSON-RPC 2.0 over the environment's MCP tools; always HTTP 200 once the environment exists. */
  @ApiOperation({ summary: "MCP over HTTP into the episode's tools (JSON-RPC)" })
  @Post('mcp')
  @HttpCode(200)
  @UseFilters(OpenEnvMcpFilter)
  mcpRequest(@Param('env') env: string, @Body() body: unknown, @CurrentPrincipal() p: Principal) {
    return this.mcp.answer(p, envName(env), body);
  }

  @ApiOperation({ summary: "An episode's trajectory (steps, rewards, model requests)" })
  @TRAJECTORY_QUERY.document()
  @Get('trajectory')
  trajectory(@Param('env') env: string, @Query('episode_id') episodeId: string | undefined, @CurrentPrincipal() p: Principal) {
    return this.episodes.trajectory(p, envName(env), episodeId);
  }

  @ApiOperation({ summary: "The environment's health (OpenEnv)" })
  @Get('health')
  async health(@Param('env') env: string, @CurrentPrincipal() p: Principal) {
    await this.episodes.environment(p.tenantId, envName(env));
    return { status: 'healthy' };
  }

  @ApiOperation({ summary: "The environment's metadata (OpenEnv)" })
  @Get('metadata')
  async metadata(@Param('env') env: string, @CurrentPrincipal() p: Principal) {
    const c = await this.episodes.environment(p.tenantId, envName(env));
    return {
      name: env,
      description: c.description || `Harness environment ${env} (${c.harness.name}, ${c.harness.kind})`,
      readme_content: null,
      version: null,
      author: null,
      documentation_url: null,
    };
  }

  @ApiOperation({ summary: 'Action and observation JSON Schemas (OpenEnv)' })
  @Get('schema')
  async schema(@Param('env') env: string, @CurrentPrincipal() p: Principal) {
    await this.episodes.environment(p.tenantId, envName(env));
    return environmentSchema();
  }
}
