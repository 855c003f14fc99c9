import type { Pool } from 'pg';
import { ADMIN_STREAM_ID, DomainError, foldSession, sessionStreamId, type Actor, type HubEvent, type SessionErased } from '@hub/domain';
import { EventStore, asTenant, eraseStreams, type ErasedStream } from '@hub/event-store';
import type { ProjectionDef } from './projection';

export interface EraseRequest {
  tenantId: string;
  sessionId: string;
  /** Other streams that belong to the session (a protocol's own, e.g. ACP's live-session facts). */
  alsoStreams?: readonly string[];
  reason: SessionErased['data']['reason'];
  archivedTo?: string | null;
  actor: Actor;
  correlationId: string;
}

/**
 * Erases a session: its streams' events, snapshots and idempotency records, and its rows in every
 * read model keyed by session, in one transaction with the `SessionErased` tombstone on the
 * tenant's admin stream (which names who erased it). Nothing else is touched, so every other
 * chain still verifies. SESSION_NOT_FOUND when the session has no stream.
 */
export async function eraseSession(
  pool: Pool,
  projections: readonly ProjectionDef[],
  r: EraseRequest,
): Promise<{ streams: ErasedStream[]; tombstoneCursor: number }> {
  const streamIds = [sessionStreamId(r.sessionId), ...(r.alsoStreams ?? [])];
  const { rows } = await asTenant(pool, r.tenantId).query<{ stream_id: string; version: number; last_hash: string | null }>(
    'SELECT stream_id, version, last_hash FROM streams WHERE tenant_id = $1 AND stream_id = ANY($2::text[])',
    [r.tenantId, streamIds],
  );
  if (!rows.some((x) => x.stream_id === streamIds[0])) throw new DomainError('SESSION_NOT_FOUND', `session ${r.sessionId} not found`);
  const seen = rows.map((x) => ({ streamId: x.stream_id, events: x.version, lastHash: x.last_hash }));
  let erased: ErasedStream[] = [];
  const tombstone: SessionErased = {
    type: 'SessionErased',
    data: { sessionId: r.sessionId, reason: r.reason, archivedTo: r.archivedTo ?? null, streams: seen },
  };
  const store = new EventStore(pool);
  // A running turn would go on writing into a stream being erased: cancel it first.
  const state = foldSession((await store.readStream<HubEvent>(r.tenantId, streamIds[0])).events as HubEvent[]);
  if (state.status === 'active')
    throw new DomainError('SESSION_BUSY', `session ${r.sessionId} is running turn ${state.activeTurn.turnId}: cancel it before erasing the session`);
  const res = await store.append(
    r.tenantId,
    ADMIN_STREAM_ID,
    [{ ...tombstone, metadata: { correlationId: r.correlationId, actor: r.actor, protocol: 'internal' } }],
    {
      expectedVersion: 'any',
      withinTransaction: async (client) => {
        erased = await eraseStreams(
          client,
          r.tenantId,
          seen.map((s) => s.streamId),
        );
        // Appended to since it was read: the tombstone would miscount; the caller tries again.
        if (erased.some((e, i) => e.version !== seen[i].events))
          throw new DomainError('STREAM_VERSION_CONFLICT', `session ${r.sessionId} changed while it was being erased; try again`);
        for (const def of projections) {
          if (!def.table.group.some((g) => g.column === 'session_id')) continue;
          await client.query(`DELETE FROM ${def.table.table} WHERE tenant_id = $1 AND session_id = $2`, [r.tenantId, r.sessionId]);
        }
        // The session's A2A push notifications (their bodies are its text; task ids are `<session>/<turn>`).
        await client.query(`DELETE FROM a2a_push_messages WHERE tenant_id = $1 AND left(task_id, length($2) + 1) = $2 || '/'`, [r.tenantId, r.sessionId]);
      },
    },
  );
  return { streams: erased, tombstoneCursor: res.events[0]?.globalPosition ?? 0 };
}
