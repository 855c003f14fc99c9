import { Logger } from '@nestjs/common';
import type { KeyLiveness, PersonSessions, Principal } from '@hub/auth';

/**
 * Long-lived connections held under an API key (WebSockets, Server-Sent Events), re-checked
 * against the key table: every `recheckMs`, and whenever `sweep()` is called (a key changed), one
 * batched query asks which of their keys still work, and each connection whose key was revoked
 * or expired (or whose person's access token expired) is handed to `onRevoked` (which closes it) and dropped. Polling the key table, not
 * a broadcast, so it needs nothing but Postgres and works across any number of instances.
 */
export class KeyRecheck<T> {
  private readonly held = new Map<T, Principal>();
  private timer?: NodeJS.Timeout;
  private sweeping = false;
  private lastSweepFailed = false;
  private readonly log: Logger;

  /** @param what names the connections in log lines ("socket", "event stream"). */
  constructor(
    private readonly liveness: KeyLiveness,
    private readonly recheckMs: number,
    private readonly what: string,
    private readonly onRevoked: (item: T, principal: Principal) => void,
    /** People's console sessions: a connection held by one ends when the session is revoked or signed out. */
    private readonly sessions?: Pick<PersonSessions, 'liveIds'>,
  ) {
    this.log = new Logger(`${what}s`);
  }

  add(item: T, principal: Principal): void {
    this.held.set(item, principal);
    this.timer ??= setInterval(() => void this.sweep(), this.recheckMs).unref();
  }

  /** The connection closed by itself. */
  delete(item: T): void {
    this.held.delete(item);
  }

  /** Closes the connections whose key no longer works; never throws (a failed check keeps them until the next). */
  async sweep(): Promise<void> {
    if (this.sweeping || this.held.size === 0) return;
    this.sweeping = true;
    try {
      // A person's access token is no row: it holds until its expiry; a console session until it is revoked (issue 24).
      const held = [...this.held.values()];
      const live = await this.liveness.liveKeyIds(held.flatMap((p) => (p.person ? [] : [p.keyId])));
      const sessionIds = held.flatMap((p) => (p.person?.sessionId ? [p.person.sessionId] : []));
      const liveSessions = this.sessions && sessionIds.length > 0 ? await this.sessions.liveIds(sessionIds) : new Set<string>();
      if (this.lastSweepFailed) this.log.log(`${this.what} key re-check works again`);
      this.lastSweepFailed = false;
      const now = Date.now();
      for (const [item, principal] of this.held) {
        const person = principal.person;
        if (person ? (person.sessionId ? liveSessions.has(person.sessionId) : person.expiresAt > now) : live.has(principal.keyId)) continue;
        this.held.delete(item);
        this.onRevoked(item, principal);
      }
    } catch (e) {
      // Logged once per outage, not per tick; the connections stay until a check succeeds.
      if (!this.lastSweepFailed) this.log.warn(`cannot re-check ${this.what} keys: ${e instanceof Error ? e.message : String(e)}`);
      this.lastSweepFailed = true;
    } finally {
      this.sweeping = false;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
