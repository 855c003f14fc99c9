import { asSystem } from '@hub/event-store';
import type { Pool } from 'pg';
import { PROJECTION_LOCK_CLASS, runnerHoldsLockSql } from './leadership';

export interface WaitProjectedOptions {
  timeoutMs?: number;
  pollMs?: number;
}

/**
 * Waits until every named projection has applied the log up to `position` (its checkpoint is
 * there or beyond), or until no process runs it (nothing can write its rows meanwhile). True
 * when that happened within `timeoutMs`, false when it did not.
 *
 * Read-your-writes for a write that the read models must reflect at once: an erasure deletes a
 * session's rows in its own transaction, but a runner's batch read before that commit can write
 * them back after it; only once the checkpoint passes the tombstone are they gone for good.
 */
export async function waitProjected(pool: Pool, names: readonly string[], position: number, opts: WaitProjectedOptions = {}): Promise<boolean> {
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const pollMs = opts.pollMs ?? 20;
  const deadline = Date.now() + timeoutMs;
  const db = asSystem(pool, 'projections');
  for (;;) {
    const { rows } = await db.query<{ waiting: string }>(
      `SELECT count(*)::text AS waiting FROM unnest($1::text[]) AS n(name) LEFT JOIN projection_checkpoints c ON c.name = n.name
        WHERE COALESCE(c.position, 0) < $2
          AND ${runnerHoldsLockSql('n.name', '$3')}`,
      [names, position, PROJECTION_LOCK_CLASS],
    );
    if (rows[0].waiting === '0') return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
