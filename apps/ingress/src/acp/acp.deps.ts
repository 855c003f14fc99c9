import type { SessionAccess } from '../auth/session-access';
import type { EventStore, EventSubscriber } from '@hub/event-store';
import type { McpAllowlists } from '@hub/agent';
import type { CommandService } from '../commands/command.service';
import type { SessionStreams } from '../streams/session-streams.service';
import type { LiveRegistry } from './live-registry';

/** What an ACP connection uses from the hub. */
export interface AcpDeps {
  commands: CommandService;
  /** Roles and a client key's own sessions, for what reads a session without a command (`session/load`, `session/resume`). */
  access: SessionAccess;
  streams: SessionStreams;
  store: EventStore;
  /** Follows a session's live-session stream (attachment updates for observers). */
  subscriber: EventSubscriber;
  /** How long a client has to answer `session/request_permission` before it counts as denied. */
  permissionTimeoutMs: number;
  /** The MCP servers a session may inject (`HUB_MCP_STDIO_COMMANDS`, `HUB_MCP_HTTP_URLS`); empty lists: none. */
  mcpAllow: McpAllowlists;
  /** Who is attached to which live session (shared by the connections of this process). */
  live: LiveRegistry;
}
