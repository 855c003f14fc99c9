import { z } from 'zod';
import { McpServerSpec } from '@hub/agent';
import type { Actor } from '@hub/domain';
import { appendWithRetry, type EventStore, type SecretStore, type StoredEvent } from '@hub/event-store';
import { foldLive, LIVE_FACT_TYPES, liveStreamId, mayControl, type LiveFact, type LiveResult, type LiveState } from '@hub/protocol-acp';

// Who is attached to which live session, kept in the log (not HubEvents: attachment is about
// connections, not turns) on one non-session stream per session:
//   acp-live:<sessionId>   AcpClientAttached | AcpControlTakenOver | AcpClientDetached | AcpClientHeartbeat
//                          AcpSessionMcpServers (the servers of the last session/new, load or resume)
// Every transition is decided on the state folded from that stream and appended at the version it
// was read at, so two ingress instances agree on the controller; a race re-reads and re-decides.
// The MCP servers are kept there too, so a prompt from any connection, on any ingress, gets them;
// one read of the stream answers both "may this client control it" and "with which servers".

export { liveStreamId };

const MCP_SERVERS_FACT = 'AcpSessionMcpServers';
const McpServersFact = z.object({ servers: z.array(McpServerSpec) });

/** What a session's live stream says about control: may this client control it, and its MCP servers. */
export interface LiveControl {
  allowed: boolean;
  mcpServers: McpServerSpec[];
}

const stateOf = (events: readonly StoredEvent[]): LiveState =>
  foldLive(events.filter((e) => LIVE_FACT_TYPES.has(e.type)).map((e) => ({ type: e.type, data: e.data }) as LiveFact));

/** The session's MCP servers as last recorded; none when it never had any. */
function serversOf(events: readonly StoredEvent[]): McpServerSpec[] {
  const last = events.filter((e) => e.type === MCP_SERVERS_FACT).at(-1);
  return last ? McpServersFact.parse(last.data).servers : [];
}

/** Who asked, and in which request: every fact on a live stream names both (issue 15). */
export interface LiveRequest {
  correlationId: string;
  actor: Actor;
}

export class LiveRegistry {
  constructor(
    private readonly store: EventStore,
    /** Where a stdio server's `env` values go: the stream records references, never the values. */
    private readonly secrets: SecretStore,
  ) {}

  /** The session's attachment state, folded from its stream. */
  async state(tenantId: string, sessionId: string): Promise<{ version: number; state: LiveState }> {
    const { version, events } = await this.store.readStream(tenantId, liveStreamId(sessionId));
    return { version, state: stateOf(events) };
  }

  /** Decides one transition on the recorded state and records it; nothing is recorded when it is refused. */
  apply(
    tenantId: string,
    sessionId: string,
    step: (s: LiveState) => LiveResult,
    fact: (before: LiveState) => LiveFact,
    request: LiveRequest,
  ): Promise<LiveResult> {
    return appendWithRetry(
      async () => {
        const { version, state } = await this.state(tenantId, sessionId);
        const r = step(state);
        if (!r.ok) return r;
        await this.store.append(tenantId, liveStreamId(sessionId), [{ ...fact(state), metadata: { ...request, protocol: 'acp' } }], {
          expectedVersion: version,
        });
        return r;
      },
      { attempts: 10 },
    );
  }

  /** Records the session's MCP servers (ACP `mcpServers`, already checked): every later turn gets them. */
  async setMcpServers(tenantId: string, sessionId: string, given: readonly McpServerSpec[], request: LiveRequest): Promise<void> {
    const servers = await Promise.all(
      given.map(async (s) => (s.transport === 'stdio' && Object.keys(s.env).length > 0 ? { ...s, env: await this.secrets.seal(tenantId, s.env) } : s)),
    );
    await this.store.append(tenantId, liveStreamId(sessionId), [{ type: MCP_SERVERS_FACT, data: { servers }, metadata: { ...request, protocol: 'acp' } }], {
      expectedVersion: 'any',
    });
  }

  /**
   * Whether `clientId` (null: a connection that never attached) may prompt, inject or answer
   * permissions, and the session's MCP servers as last recorded: one read of the stream.
   */
  async control(tenantId: string, sessionId: string, clientId: string | null): Promise<LiveControl> {
    const { events } = await this.store.readStream(tenantId, liveStreamId(sessionId));
    return { allowed: mayControl(stateOf(events), clientId), mcpServers: serversOf(events) };
  }
}
