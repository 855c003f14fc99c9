import { randomUUID } from 'node:crypto';
import { asSystem, type EventStore } from '@hub/event-store';
import type { Pool } from 'pg';
import { SessionScript } from './events';

/**
 * Appends `sessions` sessions of `turns` turns each (approvals answered, and every third turn
 * cancelled with its approval pending) for a tenant, through the real event store.
 */
export async function seedTenant(store: EventStore, tenantId: string, o: { sessions: number; turns: number; prefix?: string }): Promise<number> {
  let appended = 0;
  for (let s = 0; s < o.sessions; s++) {
    const script = new SessionScript(tenantId, `${o.prefix ?? 's'}${s}`);
    for (let t = 0; t < o.turns; t++) script.turnWithApproval(`t${t}`, t % 3 === 2 ? 'cancel' : 'approve');
    const streamId = `session-${script.sessionId}`;
    const events = script.events.map((e) => ({ type: e.type, data: e.data, metadata: { ...e.metadata, correlationId: randomUUID() } }));
    for (let i = 0; i < events.length; i += 200) {
      await store.append(tenantId, streamId, events.slice(i, i + 200) as never, { expectedVersion: 'any' });
    }
    appended += events.length;
  }
  return appended;
}

/** Every read model table, row by row, in key order: what "equal to a rebuild" compares. */
export async function dumpReadModels(pool: Pool): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of [
    ['read_sessions', 'tenant_id, session_id'],
    ['read_turns', 'tenant_id, session_id, turn_id'],
    ['read_approvals', 'tenant_id, session_id, approval_id'],
    ['read_usage', 'tenant_id, session_id, turn_id'],
  ]) {
    out[table] = (await pool.query(`SELECT row_to_json(t) AS r FROM ${table} t ORDER BY ${order}`)).rows.map((r: { r: unknown }) => r.r);
  }
  return out;
}

/**
 * Waits until every named projection has applied the whole log: every tenant's events, so system
 * work `projections` (on the apps' pool an unscoped read sees no event and would never wait).
 */
export async function waitCaughtUp(pool: Pool, names: readonly string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const db = asSystem(pool, 'projections');
  for (;;) {
    const { rows } = await db.query<{ behind: string }>(
      `SELECT count(*)::text AS behind FROM unnest($1::text[]) n(name) LEFT JOIN projection_checkpoints c USING (name)
        WHERE COALESCE(c.position, 0) < (SELECT COALESCE(max(global_position), 0) FROM events)`,
      [names],
    );
    if (rows[0].behind === '0') return;
    if (Date.now() > deadline) throw new Error(`projections not caught up within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
