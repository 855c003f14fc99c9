import type { PoolClient } from 'pg';
import { checkIds } from './ids';

/** What erasing one stream removed, for the tombstone that records it. */
export interface ErasedStream {
  streamId: string;
  /** Events deleted (0: the stream did not exist). */
  events: number;
  /** The chain's head before erasure: the last link a kept export of the stream can be checked against. */
  lastHash: string | null;
  version: number;
}

/**
 * Deletes whole streams of a tenant: their events, stream rows (version and chain head),
 * snapshots and idempotency records. The only delete the log ever sees (erasure on request, and
 * retention): it runs on `client` inside the caller's transaction, so the caller records the
 * tombstone in the same commit. Other streams' chains are untouched: a chain links events of one
 * stream only.
 */
export async function eraseStreams(client: PoolClient, tenantId: string, streamIds: readonly string[]): Promise<ErasedStream[]> {
  const erased: ErasedStream[] = [];
  for (const streamId of streamIds) {
    checkIds(tenantId, streamId);
    const head = await client.query<{ version: number; last_hash: string | null }>(
      'SELECT version, last_hash FROM streams WHERE tenant_id = $1 AND stream_id = $2 FOR UPDATE',
      [tenantId, streamId],
    );
    const deleted = await client.query('DELETE FROM events WHERE tenant_id = $1 AND stream_id = $2', [tenantId, streamId]);
    await client.query('DELETE FROM streams WHERE tenant_id = $1 AND stream_id = $2', [tenantId, streamId]);
    await client.query('DELETE FROM session_snapshots WHERE tenant_id = $1 AND stream_id = $2', [tenantId, streamId]);
    await client.query('DELETE FROM idempotency_keys WHERE tenant_id = $1 AND stream_id = $2', [tenantId, streamId]);
    erased.push({ streamId, events: deleted.rowCount ?? 0, lastHash: head.rows[0]?.last_hash ?? null, version: head.rows[0]?.version ?? 0 });
  }
  return erased;
}
