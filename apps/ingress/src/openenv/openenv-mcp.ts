import { SecretStore } from '@hub/event-store';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import {
  BUILTIN_TOOLS,
  McpPool,
  RESERVED_MCP_TOOL_NAMES,
  listMcpTools,
  mcpResultText,
  resolveMcpTools,
  type McpCallResult,
  type McpToolTarget,
} from '@hub/agent';
import type { EnvironmentConfig } from '@hub/protocol-openenv';
import { mayDo, refusal, type Principal } from '@hub/auth';
import { DomainError } from '@hub/domain';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { errorReply } from './openenv-errors';
import { OpenEnvEpisodes } from './openenv-episodes';
import { InvalidInputException } from '../http/body-errors';
import { traceFailure } from '../http/problem';

// OpenEnv's `POST /mcp` and the `mcp` frame of `/ws` (upstream `http_server.py` `mcp_handler`):
// JSON-RPC 2.0 `tools/list` and `tools/call` over the environment's injected MCP servers, named
// exactly as the agent sees them (`env_` on a clash with a built-in tool), plus upstream's
// `openenv/session/create|close`, which its Python client sends first. Upstream does not answer
// `initialize`, so neither does this (-32601). RFC 005 "MCP tool scoping": `reset`, `step`,
// `state` and `close` are never tools here, listed or callable.
// Calls made here are not written to the episode's log: the canonical tool events belong to a
// turn (`ToolCallStarted` needs a turnId and messageId) and a trainer's direct call is no turn.

type RpcId = string | number | null;
type Servers = EnvironmentConfig['mcp_servers'];

/** A JSON-RPC 2.0 response, as upstream's `JsonRpcResponse.model_dump()` writes it. */
export type RpcReply = { jsonrpc: '2.0'; id: RpcId; result: unknown } | { jsonrpc: '2.0'; id: RpcId; error: { code: number; message: string; data?: unknown } };

/** Upstream's `JsonRpcErrorCode`. */
export const RPC = { PARSE_ERROR: -32700, INVALID_REQUEST: -32600, METHOD_NOT_FOUND: -32601, INVALID_PARAMS: -32602, INTERNAL_ERROR: -32603 } as const;

export const rpcError = (id: RpcId, code: number, message: string, data?: unknown): RpcReply => ({
  jsonrpc: '2.0',
  id,
  error: { code, message, ...(data === undefined ? {} : { data }) },
});
const rpcResult = (id: RpcId, result: unknown): RpcReply => ({ jsonrpc: '2.0', id, result });

const BUILTIN_NAMES: ReadonlySet<string> = new Set(BUILTIN_TOOLS.map((t) => t.name));
const TOOL_CALL_TIMEOUT_MS = 30_000; // upstream's MCP_TOOL_CALL_TIMEOUT
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A refusal inside a method, answered as a JSON-RPC error with the request's id. */
class RpcRefusal extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

@Injectable()
export class OpenEnvMcp implements OnModuleDestroy {
  /** Connections kept per tenant (the pool's scope), so tenants never share a server session. */
  private readonly pool: McpPool;

  constructor(
    private readonly episodes: OpenEnvEpisodes,
    @Inject(INGRESS_CONFIG) settings: IngressSettings,
    secrets: SecretStore,
  ) {
    // Pooled per tenant (the scope), so references open for that tenant only.
    this.pool = new McpPool({
      stdioAllowlist: settings.mcpStdioAllowlist,
      httpAllowlist: settings.mcpHttpAllowlist,
      openEnv: (tenantId, env) => secrets.open(tenantId, env),
    });
  }

  onModuleDestroy(): Promise<void> {
    return this.pool.close();
  }

  /**
   * Answers one JSON-RPC request (the parsed body) for the tenant's environment `env`. An
   * unknown environment throws `OpenEnvRefusal` (HTTP 404); everything else is a reply.
   */
  async answer(principal: Principal, env: string, body: unknown): Promise<RpcReply> {
    const { tenantId } = principal;
    const config = await this.episodes.environment(tenantId, env);
    // Calling a tool acts through the environment (its MCP servers may write anywhere they can):
    // the roles that may submit turns may (issue 16); listing the tools is a read.
    if (isObject(body) && body['method'] === 'tools/call' && !mayDo(principal.role, 'submit'))
      throw new DomainError('FORBIDDEN', refusal(principal.role, 'submit'));
    if (!isObject(body)) return rpcError(null, RPC.INVALID_REQUEST, 'Invalid Request: send one JSON-RPC 2.0 request object (application/json)');
    const id = body['id'] ?? null;
    if (!(typeof id === 'string' || Number.isInteger(id) || id === null))
      return rpcError(null, RPC.INVALID_REQUEST, 'Invalid Request: id must be a string, an integer or null');
    const rid = id as RpcId;
    if (body['jsonrpc'] !== '2.0') return rpcError(rid, RPC.INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"');
    if (typeof body['method'] !== 'string') return rpcError(rid, RPC.INVALID_REQUEST, 'Invalid Request: method must be a string');
    const params = body['params'] ?? {};
    if (!isObject(params)) return rpcError(rid, RPC.INVALID_PARAMS, 'Params must be an object');
    try {
      return rpcResult(rid, await this.dispatch(tenantId, config.mcp_servers, body['method'], params));
    } catch (e) {
      if (e instanceof RpcRefusal) return rpcError(rid, e.code, e.message);
      return rpcError(rid, RPC.INTERNAL_ERROR, (e as Error).message);
    }
  }

  private async dispatch(tenantId: string, servers: Servers, method: string, params: Record<string, unknown>): Promise<unknown> {
    switch (method) {
      case 'tools/list':
        return {
          tools: (await this.tools(tenantId, servers)).map((t) => ({ name: t.name, description: t.listed.description, inputSchema: t.listed.inputSchema })),
        };
      case 'tools/call':
        return this.call(tenantId, servers, params);
      // MCP connections are pooled per server and tenant, not per client session: a session id
      // is handed out and accepted so OpenEnv's client works, and binds nothing.
      case 'openenv/session/create':
        return { session_id: randomUUID() };
      case 'openenv/session/close':
        if (typeof params['session_id'] !== 'string' || !params['session_id'])
          throw new RpcRefusal(RPC.INVALID_PARAMS, "Invalid params - 'session_id' is required");
        return { session_id: params['session_id'], closed: true };
      default:
        throw new RpcRefusal(RPC.METHOD_NOT_FOUND, `Method not found: ${method}`);
    }
  }

  private async tools(tenantId: string, servers: Servers): Promise<McpToolTarget[]> {
    if (servers.length === 0) throw new RpcRefusal(RPC.INTERNAL_ERROR, 'Environment does not support MCP: it has no mcp_servers');
    return resolveMcpTools(await listMcpTools(servers, this.pool, tenantId), BUILTIN_NAMES);
  }

  private async call(tenantId: string, servers: Servers, params: Record<string, unknown>): Promise<unknown> {
    const name = params['name'];
    const args = params['arguments'] ?? {};
    if (typeof name !== 'string' || !name) throw new RpcRefusal(RPC.INVALID_PARAMS, "Missing 'name' in params");
    if (!isObject(args)) throw new RpcRefusal(RPC.INVALID_PARAMS, "Invalid params - 'arguments' must be an object");
    if (RESERVED_MCP_TOOL_NAMES.has(name))
      throw new RpcRefusal(RPC.INVALID_PARAMS, `Tool not found: ${name} (reset, step, state and close belong to the orchestration API, never to MCP)`);
    const target = (await this.tools(tenantId, servers)).find((t) => t.name === name);
    if (!target) throw new RpcRefusal(RPC.INVALID_PARAMS, `Tool not found: ${name}`);
    const result = await target.session.callToolResult(target.listed.name, args, AbortSignal.timeout(TOOL_CALL_TIMEOUT_MS));
    if (result.isError) throw toolError(name, result);
    return { ...result, data: result.structuredContent ?? mcpResultText(result.content) };
  }
}

/**
 * A result the server marked `isError`, as upstream's client raises it (-32603). The SDK's server
 * reports bad arguments and unknown tools as such a result whose text starts `MCP error <code>:`;
 * that code is kept, so invalid arguments are -32602.
 */
function toolError(name: string, result: McpCallResult): RpcRefusal {
  const text = mcpResultText(result.content);
  const m = /^MCP error (-32\d{3}): /.exec(text);
  return new RpcRefusal(m ? Number(m[1]) : RPC.INTERNAL_ERROR, text || `Tool '${name}' failed`);
}

/**
 * `POST /mcp` errors: a body that is not JSON is a JSON-RPC parse error (HTTP 200, as upstream);
 * anything else leaves in OpenEnv's HTTP shape (404 unknown environment, 413, 401...).
 */
@Catch()
export class OpenEnvMcpFilter implements ExceptionFilter {
  catch(e: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    traceFailure(e);
    if (res.headersSent) return;
    // Input the edge check refused (http/body-errors.ts) was JSON, just not acceptable: -32600.
    if (e instanceof InvalidInputException) return void res.status(200).json(rpcError(null, RPC.INVALID_REQUEST, `Invalid Request: ${e.message}`));
    if (e instanceof HttpException && e.getStatus() === 400) return void res.status(200).json(rpcError(null, RPC.PARSE_ERROR, 'Parse error'));
    const { status, body } = errorReply(e);
    if (status >= 500) new Logger('openenv').error(`POST mcp: ${(e as Error)?.stack ?? String(e)}`);
    res.status(status).json(body);
  }
}
