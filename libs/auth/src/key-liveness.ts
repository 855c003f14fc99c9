/** The part of the Prisma client liveness checks use. */
export interface KeyLivenessDb {
  apiKey: {
    findMany(args: {
      where: { id: { in: string[] }; revokedAt: null; OR: [{ expiresAt: null }, { expiresAt: { gt: Date } }] };
      select: { id: true };
    }): Promise<{ id: string }[]>;
  };
}

/** Key ids per query: well under Postgres's bind-parameter limit. */
export const LIVE_KEY_BATCH = 1000;

/**
 * Whether keys that authenticated a connection earlier still work. A socket is authenticated
 * once, at its upgrade; this is how it learns later that its key was revoked, whichever
 * process (or `bin/hub key revoke`) revoked it: the log of record is the `api_keys` row.
 */
export class KeyLiveness {
  constructor(private readonly db: KeyLivenessDb) {}

  /** Which of `keyIds` are neither revoked nor expired, in one query per {@link LIVE_KEY_BATCH} distinct ids. */
  async liveKeyIds(keyIds: Iterable<string>, now: Date = new Date()): Promise<Set<string>> {
    const live = new Set<string>();
    const unique = [...new Set(keyIds)];
    for (let i = 0; i < unique.length; i += LIVE_KEY_BATCH) {
      const rows = await this.db.apiKey.findMany({
        where: { id: { in: unique.slice(i, i + LIVE_KEY_BATCH) }, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
        select: { id: true },
      });
      for (const row of rows) live.add(row.id);
    }
    return live;
  }

  /** One indexed read: whether a principal's key still works now (not revoked, not expired). */
  async isLive(keyId: string): Promise<boolean> {
    return (await this.liveKeyIds([keyId])).has(keyId);
  }
}
