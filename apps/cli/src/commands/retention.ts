import { createWriteStream } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { ADMIN_STREAM_ID, isDomainError, limitsOf, sessionIdOf } from '@hub/domain';
import { EventStore, asSystem, asTenant, createPool, exportStream } from '@hub/event-store';
import { HUB_PROJECTIONS, eraseSession } from '@hub/projections';
import { a2aPushStreamId } from '@hub/protocol-a2a';
import { liveStreamId } from '@hub/protocol-acp';
import { HarnessStopBus } from '@hub/queue';
import type { Pool } from 'pg';

type Out = (line: string) => void;

export interface RetentionOptions {
  databaseUrl: string;
  queue: { redisUrl: string; prefix: string };
  /** Where each session's export goes before it is erased: `<dir>/<tenant>/<session>.ndjson`. */
  archiveDir: string;
  tenantId?: string;
  /** Instead of each tenant's `retentionDays`. */
  olderThanDays?: number;
  dryRun: boolean;
}

/**
 * `hub retention run`: for each tenant with a retention (its admin-set `retentionDays`, or
 * `--older-than`), every session idle for longer is exported with its hashes to the archive,
 * checked complete, then erased with a `SessionErased` tombstone (reason `retention`, naming the
 * file). A JSON line per session, then a summary; progress on stderr. Exit 0 when every due
 * session was archived and erased (a session with a running turn is left for the next run).
 */
export async function retentionRun(o: RetentionOptions, out: Out, say: Out): Promise<number> {
  const pool = createPool(o.databaseUrl, { max: 2 });
  const stops = new HarnessStopBus(o.queue.redisUrl, o.queue.prefix);
  const totals = { tenants: 0, erased: 0, events: 0, skipped: 0 };
  try {
    // Which tenants there are is the only system work here; each tenant's sessions are read as that tenant.
    const tenants = o.tenantId
      ? [o.tenantId]
      : (await asSystem(pool, 'retention').query<{ id: string }>('SELECT id FROM tenants ORDER BY created_at')).rows.map((r) => r.id);
    for (const tenantId of tenants) {
      const days = o.olderThanDays ?? (await retentionDaysOf(pool, tenantId));
      if (days === null) continue;
      totals.tenants++;
      const due = await asTenant(pool, tenantId).query<{ stream_id: string; version: number }>(
        `SELECT stream_id, version FROM streams WHERE tenant_id = $1 AND stream_id LIKE 'session-%' AND updated_at < now() - make_interval(days => $2) ORDER BY updated_at`,
        [tenantId, days],
      );
      say(`retention: tenant ${tenantId}: ${due.rows.length} sessions idle for more than ${days} days`);
      for (const row of due.rows) {
        const sessionId = sessionIdOf(row.stream_id) as string;
        if (o.dryRun) {
          out(JSON.stringify({ tenantId, sessionId, events: row.version, dryRun: true }));
          continue;
        }
        const file = join(o.archiveDir, tenantId, `${sessionId}.ndjson`);
        const archived = await archive(pool, tenantId, row.stream_id, file);
        if (archived !== row.version) {
          say(`retention: ${sessionId}: archived ${archived} of ${row.version} events (it changed meanwhile); left for the next run`);
          totals.skipped++;
          continue;
        }
        try {
          await eraseSession(pool, HUB_PROJECTIONS, {
            tenantId,
            sessionId,
            alsoStreams: [liveStreamId(sessionId), a2aPushStreamId(sessionId)],
            reason: 'retention',
            archivedTo: file,
            actor: { type: 'system', id: 'retention' },
            correlationId: randomUUID(),
          });
        } catch (e) {
          if (!isDomainError(e)) throw e;
          say(`retention: ${sessionId}: not erased (${e.message}); left for the next run`);
          totals.skipped++;
          continue;
        }
        // Workers drop what they kept of it (and stop a harness it may have had).
        await stops.publish(tenantId, sessionId);
        totals.erased++;
        totals.events += archived;
        out(JSON.stringify({ tenantId, sessionId, events: archived, archivedTo: file }));
      }
    }
    out(JSON.stringify({ ok: totals.skipped === 0, ...totals }));
    return totals.skipped === 0 ? 0 : 1;
  } finally {
    await stops.close();
    await pool.end();
  }
}

async function retentionDaysOf(pool: Pool, tenantId: string): Promise<number | null> {
  const last = await new EventStore(pool).lastOfType(tenantId, ADMIN_STREAM_ID, 'TenantLimitsSet');
  return limitsOf(last ? [last] : []).retentionDays;
}

/** Writes the stream's export (events with their hashes, `hub export`'s lines) to `file`, page by page; the number of events written. */
async function archive(pool: Pool, tenantId: string, streamId: string, file: string): Promise<number> {
  await mkdir(join(file, '..'), { recursive: true });
  const stream = createWriteStream(file, { flags: 'w' });
  const n = await exportStream(pool, tenantId, streamId, async (line) => {
    if (!stream.write(line)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
  });
  stream.end();
  await finished(stream);
  // On disk before the erasure that relies on it.
  const fh = await open(file, 'r+');
  await fh.sync();
  await fh.close();
  return n;
}
