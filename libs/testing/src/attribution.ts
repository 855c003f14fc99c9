import type { Pool } from 'pg';
import { API_KEY_TEXT } from '@hub/domain';

/** A full API key as `hub tenant create` and the admin API make them (the key format is @hub/domain's). */

export interface Unattributed {
  streamId: string;
  streamPosition: number;
  type: string;
  missing: string;
}

/**
 * Issue 15: every event's metadata names the principal (an API key by its prefix and name, a
 * worker or the system), the protocol and the correlation id, and no event carries a key's
 * secret. Checked over a whole database by every e2e stack when it stops, so each event the
 * suite makes is held to it; at most `limit` findings, one per stream and event type.
 */
export async function unattributedEvents(pool: Pool, limit = 20): Promise<Unattributed[]> {
  const { rows } = await pool.query<{ stream_id: string; stream_position: string; type: string; missing: string }>(
    `SELECT DISTINCT ON (stream_id, type, missing) stream_id, stream_position::text, type, missing FROM (
       SELECT stream_id, stream_position, type,
              CASE WHEN metadata->>'correlationId' IS NULL THEN 'correlationId'
                   WHEN metadata->>'protocol' IS NULL THEN 'protocol'
                   WHEN metadata->'actor'->>'type' IS NULL OR metadata->'actor'->>'id' IS NULL THEN 'actor'
                   WHEN metadata->'actor'->>'type' = 'api_key' AND metadata->'actor'->>'name' IS NULL THEN 'actor.name'
                   WHEN data::text ~ $1 OR metadata::text ~ $1 THEN 'an API key in the event'
              END AS missing
         FROM events) e
      WHERE missing IS NOT NULL
      ORDER BY stream_id, type, missing, stream_position
      LIMIT $2`,
    [API_KEY_TEXT, limit],
  );
  return rows.map((r) => ({ streamId: r.stream_id, streamPosition: Number(r.stream_position), type: r.type, missing: r.missing }));
}
