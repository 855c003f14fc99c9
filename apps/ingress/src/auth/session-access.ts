import { Injectable } from '@nestjs/common';
import { actionOf, mayDo, OWN_SESSIONS_ONLY, type Principal, requireGrant, type SessionAction } from '@hub/auth';
import { DomainError, sessionStreamId, type HubCommand, type HubEvent, type Recorded } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import { SESSION_CREATED_FACT, mayBeCreatedOverAcp } from '../acp/acp-sessions';
import { liveStreamId } from '../acp/live-registry';
import { openerOf } from './opener';

/** Openers remembered per process; a session's opener never changes, so a hit is always right. */
const MAX_CACHED_OWNERS = 10_000;

/**
 * Who may do what to which session, on every surface: the key's role must grant the action
 * (`GRANTS`), and a `client` key may touch only sessions its own key opened (the actor of the
 * session's first event). Another key's session is, to a client key, a session that does not
 * exist: the same answer as another tenant's.
 */
@Injectable()
export class SessionAccess {
  private readonly owners = new Map<string, string | null>();

  constructor(private readonly store: EventStore) {}

  /**
   * Throws FORBIDDEN when the role may not, SESSION_NOT_FOUND when a client key does not own an
   * existing session. Only a client key's check reads anything (the opener, once per session).
   * Says on what it let the key through: its role (`role`), its own session (`own`), or a
   * session nobody has opened yet (`unopened`, which the key may open).
   */
  async check(p: Principal, sessionId: string, action: SessionAction): Promise<'role' | 'own' | 'unopened'> {
    requireGrant(p.role, action);
    if (!OWN_SESSIONS_ONLY.has(p.role)) return 'role';
    const owner = await this.ownerOf(p.tenantId, sessionId);
    // A session not opened yet is the client's to open (its first event will name this key). A
    // watcher admitted so is checked again when that first event arrives (mayWatchOpenedBy), a
    // command when it is decided on a session that exists by then (CommandHandler's whenOpened).
    if (owner === undefined) return 'unopened';
    if (owner !== p.keyPrefix) throw new DomainError('SESSION_NOT_FOUND', `session ${sessionId} not found`);
    return 'own';
  }

  checkCommand(p: Principal, command: HubCommand): Promise<'role' | 'own' | 'unopened'> {
    return this.check(p, command.sessionId, actionOf(command.type));
  }

  /** Whether `p` may read the session, for lists that filter rather than refuse. */
  async mayRead(p: Principal, sessionId: string): Promise<boolean> {
    if (!OWN_SESSIONS_ONLY.has(p.role)) return mayDo(p.role, 'read');
    return (await this.ownerOf(p.tenantId, sessionId)) === p.keyPrefix;
  }

  /**
   * Whether `p` may go on watching a session it began watching before the session existed, now
   * that `first` (its first event) says who opened it: a client key only its own.
   */
  mayWatchOpenedBy(p: Principal, first: Recorded<HubEvent>): boolean {
    return !OWN_SESSIONS_ONLY.has(p.role) || openerOf(first) === p.keyPrefix;
  }

  /** Drops what is remembered of an erased session: its id may be opened again, by another key. */
  forget(tenantId: string, sessionId: string): void {
    this.owners.delete(`${tenantId}\u0000${sessionId}`);
  }

  /**
   * The key prefix that opened the session; null when something other than a key did; undefined
   * when it does not exist. An ACP `session/new` opens a session before its first event: its
   * creation fact (on the live stream) names the key, so nobody else's first prompt takes it.
   */
  private async ownerOf(tenantId: string, sessionId: string): Promise<string | null | undefined> {
    const key = `${tenantId}\u0000${sessionId}`;
    if (this.owners.has(key)) return this.owners.get(key);
    const { events } = await this.store.readStream(tenantId, sessionStreamId(sessionId), { maxCount: 1 });
    // Only an id session/new makes can have a creation fact: a client key's first submit to a new session of its own reads once.
    const first = events[0] ?? (mayBeCreatedOverAcp(sessionId) ? await this.acpCreation(tenantId, sessionId) : undefined);
    const owner = openerOf(first);
    if (owner === undefined) return undefined;
    if (this.owners.size >= MAX_CACHED_OWNERS) this.owners.delete(this.owners.keys().next().value as string);
    this.owners.set(key, owner);
    return owner;
  }

  /** The creation fact of a session made by ACP `session/new` and not prompted yet, if it names its key. */
  private async acpCreation(tenantId: string, sessionId: string) {
    const { events } = await this.store.readStream(tenantId, liveStreamId(sessionId), { maxCount: 1 });
    const fact = events[0];
    return fact?.type === SESSION_CREATED_FACT && fact.metadata.actor !== undefined ? fact : undefined;
  }
}
