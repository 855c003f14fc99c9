import { commandRule, ruleEnv, tenantEnvRefused, type CommandRule } from '@hub/config';
import { connectMcp, type McpConnector, type McpSession } from './mcp-connections';
import type { McpServerSpec } from './mcp-servers';

/** A server the operator has not allowed (see `HUB_MCP_STDIO_COMMANDS` and `HUB_MCP_HTTP_URLS`). */
export class McpNotAllowedError extends Error {
  override readonly name = 'McpNotAllowedError';
  constructor(server: string, what: { command: readonly string[] } | { url: string } | { env: readonly string[] }) {
    super(
      'command' in what
        ? `MCP server ${server}: stdio command "${what.command.join(' ')}" is not allowed on this hub (HUB_MCP_STDIO_COMMANDS)`
        : 'url' in what
          ? `MCP server ${server}: URL ${what.url} is not allowed on this hub (HUB_MCP_HTTP_URLS)`
          : `MCP server ${server}: environment variable ${what.env.join(', ')} may not be set for this command (the operator lists what a tenant may set in HUB_MCP_STDIO_COMMANDS, env:NAME)`,
    );
  }
}

/** True when `command` starts with one of the allowed argv prefixes, element by element. */
export function stdioAllowed(command: readonly string[], allowlist: readonly CommandRule[]): boolean {
  return commandRule(command, allowlist) !== undefined;
}

/**
 * True when `url` lies under one of the allowed URL prefixes: the same origin (scheme, host and
 * port compared whole, so `https://mcp.example.com` never admits `https://mcp.example.com.evil.net`)
 * and a path that starts with the prefix's path.
 */
export function httpAllowed(url: string, allowlist: readonly string[]): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  if (target.username || target.password) return false;
  return allowlist.some((raw) => {
    try {
      const prefix = new URL(raw);
      // A path prefix covers itself and what lies under it: `/mcp` admits `/mcp` and `/mcp/x`, never `/mcpx`.
      const under = prefix.pathname.endsWith('/') ? prefix.pathname : `${prefix.pathname}/`;
      return prefix.origin === target.origin && (target.pathname === prefix.pathname || target.pathname.startsWith(under));
    } catch {
      return false;
    }
  });
}

/** The operator's allowlists for tenant-configured MCP servers. Empty lists: none of that kind. */
export interface McpAllowlists {
  /** Command-line prefixes a stdio server may run, with its environment (`HUB_MCP_STDIO_COMMANDS`). */
  stdio?: readonly CommandRule[];
  /** URL prefixes a streamable-HTTP server may live under (`HUB_MCP_HTTP_URLS`). */
  http?: readonly string[];
}

/** Why the operator does not allow `server`, or null when it may be used. */
export function mcpServerRefusal(server: McpServerSpec, allow: McpAllowlists): McpNotAllowedError | null {
  if (server.transport === 'stdio') {
    const rule = commandRule(server.command, allow.stdio ?? []);
    if (!rule) return new McpNotAllowedError(server.name, { command: server.command });
    const refused = tenantEnvRefused(rule, server.env);
    return refused.length > 0 ? new McpNotAllowedError(server.name, { env: refused }) : null;
  }
  return httpAllowed(server.url, allow.http ?? []) ? null : new McpNotAllowedError(server.name, { url: server.url });
}

interface Entry {
  session: Promise<McpSession>;
  /** The session once connected, to see whether it is still alive. */
  live?: McpSession;
  lastUsed: number;
}

/**
 * Connections to MCP servers, shared by the turns of one process and keyed by the server's full
 * spec (so two environments configuring the same server share it, a changed spec reconnects) and
 * by an optional scope (a tenant: tenants never share a connection, nor a stateful server's
 * session). A connection unused for `idleMs` is closed by `sweep`, which runs on a timer; one
 * that died (see `McpSession.alive`) is replaced on its next use.
 */
export class McpPool {
  private readonly entries = new Map<string, Entry>();
  private readonly timer: ReturnType<typeof setInterval> | null;

  constructor(
    private readonly opts: {
      connect?: McpConnector;
      idleMs?: number;
      now?: () => number;
      /**
       * Command-line prefixes a stdio server may run (the operator's `HUB_MCP_STDIO_COMMANDS`).
       * Empty: no stdio servers. A tenant's configuration must never run an arbitrary program.
       */
      stdioAllowlist?: readonly CommandRule[];
      /**
       * URL prefixes an HTTP server may live under (`HUB_MCP_HTTP_URLS`). Empty: no HTTP servers.
       * A tenant's configuration must never make the hub fetch an arbitrary internal address.
       */
      httpAllowlist?: readonly string[];
      /**
       * Turns a configured environment back into values (`SecretStore.open` for the scope's
       * tenant): what is recorded holds references, never the values themselves.
       */
      openEnv?: (scope: string, env: Readonly<Record<string, string>>) => Promise<Record<string, string>>;
    } = {},
  ) {
    const idle = opts.idleMs ?? 5 * 60_000;
    this.timer = idle > 0 ? setInterval(() => void this.sweep(), Math.max(1000, idle / 2)) : null;
    this.timer?.unref();
  }

  /** The server's session, connecting on first use; a failed connect is not kept. */
  session(server: McpServerSpec, scope = ''): Promise<McpSession> {
    const refused = mcpServerRefusal(server, { stdio: this.opts.stdioAllowlist, http: this.opts.httpAllowlist });
    if (refused) return Promise.reject(refused);
    const key = JSON.stringify([scope, server]);
    const hit = this.entries.get(key);
    if (hit && hit.live?.alive?.() !== false) {
      hit.lastUsed = this.now();
      return hit.session;
    }
    if (hit) {
      this.entries.delete(key);
      void hit.live?.close().catch(() => undefined);
    }
    const httpAllowlist = this.opts.httpAllowlist ?? [];
    const session = this.processSpec(server, scope).then((spec) =>
      (this.opts.connect ?? connectMcp)(spec, { httpAllowed: (url) => httpAllowed(url, httpAllowlist) }),
    );
    const entry: Entry = { session, lastUsed: this.now() };
    this.entries.set(key, entry);
    session.then(
      (s) => void (entry.live = s),
      () => this.entries.get(key) === entry && this.entries.delete(key),
    );
    return session;
  }

  /**
   * What is started: a stdio server's environment becomes exactly what its rule allows (the
   * operator's fixed values and the tenant's allowed names, opened from their references).
   */
  private async processSpec(server: McpServerSpec, scope: string): Promise<McpServerSpec> {
    if (server.transport !== 'stdio') return server;
    const rule = commandRule(server.command, this.opts.stdioAllowlist ?? []);
    if (!rule) throw new McpNotAllowedError(server.name, { command: server.command });
    const tenant = this.opts.openEnv ? await this.opts.openEnv(scope, server.env) : server.env;
    return { ...server, env: ruleEnv({}, rule, tenant) };
  }

  /** Closes connections idle for longer than `idleMs`. */
  async sweep(): Promise<void> {
    const limit = this.now() - (this.opts.idleMs ?? 5 * 60_000);
    const stale = [...this.entries].filter(([, e]) => e.lastUsed < limit);
    for (const [key] of stale) this.entries.delete(key);
    await Promise.all(stale.map(([, e]) => e.session.then((s) => s.close()).catch(() => undefined)));
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((e) => e.session.then((s) => s.close()).catch(() => undefined)));
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }
}
