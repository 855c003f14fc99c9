import { connectMcp, type McpConnector, type McpSession } from './mcp-connections';
import type { McpServerSpec } from './mcp-servers';

/** A stdio server whose command the operator has not allowed (see `HUB_MCP_STDIO_COMMANDS`). */
export class McpNotAllowedError extends Error {
  override readonly name = 'McpNotAllowedError';
  constructor(server: string, command: readonly string[]) {
    super(`MCP server ${server}: stdio command "${command.join(' ')}" is not allowed on this hub (HUB_MCP_STDIO_COMMANDS)`);
  }
}

/** True when `command` starts with one of the allowed argv prefixes, element by element. */
export function stdioAllowed(command: readonly string[], allowlist: readonly (readonly string[])[]): boolean {
  return allowlist.some((prefix) => prefix.length > 0 && prefix.length <= command.length && prefix.every((part, i) => command[i] === part));
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
      stdioAllowlist?: readonly (readonly string[])[];
    } = {},
  ) {
    const idle = opts.idleMs ?? 5 * 60_000;
    this.timer = idle > 0 ? setInterval(() => void this.sweep(), Math.max(1000, idle / 2)) : null;
    this.timer?.unref();
  }

  /** The server's session, connecting on first use; a failed connect is not kept. */
  session(server: McpServerSpec, scope = ''): Promise<McpSession> {
    if (server.transport === 'stdio' && !stdioAllowed(server.command, this.opts.stdioAllowlist ?? [])) {
      return Promise.reject(new McpNotAllowedError(server.name, server.command));
    }
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
    const session = (this.opts.connect ?? connectMcp)(server);
    const entry: Entry = { session, lastUsed: this.now() };
    this.entries.set(key, entry);
    session.then(
      (s) => void (entry.live = s),
      () => this.entries.get(key) === entry && this.entries.delete(key),
    );
    return session;
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
