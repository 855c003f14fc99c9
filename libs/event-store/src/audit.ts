import type { Pool } from 'pg';
import { checkIds } from './ids';
import { toPosition, type EventRow } from './rows';
import { asSystem, asTenant, scopeStatement, systemScope, tenantScope, type DbScope, type ScopedDb } from './scope';
import { StreamChecker, checkHead, type BrokenLink } from './hash-chain';

/** An event as the chain sees it: stored texts, not parsed values. */
export interface ChainRow {
  globalPosition: number;
  tenantId: string;
  streamId: string;
  streamPosition: number;
  eventId: string;
  type: string;
  createdAt: string;
  /** The exact JSON texts stored. */
  data: string;
  metadata: string;
  hash: string | null;
  prevHash: string | null;
}

/** An event row with its JSON columns as stored text (`::text`), and its chain columns. */
type RawChainRow = Omit<EventRow, 'data' | 'metadata'> & { data: string; metadata: string; hash: string | null; prev_hash: string | null };

const CHAIN_COLUMNS = `global_position::text, tenant_id, stream_id, stream_position, event_id, type, created_at,
  data::text AS data, metadata::text AS metadata, hash, prev_hash`;

function toChainRow(r: RawChainRow): ChainRow {
  return {
    globalPosition: toPosition(r.global_position),
    tenantId: r.tenant_id,
    streamId: r.stream_id,
    streamPosition: r.stream_position,
    eventId: r.event_id,
    type: r.type,
    createdAt: r.created_at.toISOString(),
    data: r.data,
    metadata: r.metadata,
    hash: r.hash,
    prevHash: r.prev_hash,
  };
}

/**
 * One NDJSON line of an export: the event's envelope with its stored `data` and `metadata` texts
 * embedded byte for byte, and its `hash` and `prevHash`, so a third party can re-hash it offline
 * (`hub audit verify --file`).
 */
export function exportLine(r: ChainRow): string {
  const head = JSON.stringify({
    globalPosition: r.globalPosition,
    tenantId: r.tenantId,
    streamId: r.streamId,
    streamPosition: r.streamPosition,
    eventId: r.eventId,
    type: r.type,
    createdAt: r.createdAt,
  });
  return `${head.slice(0, -1)},"data":${r.data},"metadata":${r.metadata},"hash":${JSON.stringify(r.hash)},"prevHash":${JSON.stringify(r.prevHash)}}\n`;
}

/** A page of one stream's events after `afterPosition`, as the chain sees them. */
export async function readChainPage(pool: Pool, tenantId: string, streamId: string, afterPosition: number, limit: number): Promise<ChainRow[]> {
  checkIds(tenantId, streamId);
  const { rows } = await asTenant(pool, tenantId).query<RawChainRow>(
    `SELECT ${CHAIN_COLUMNS} FROM events WHERE tenant_id = $1 AND stream_id = $2 AND stream_position > $3 ORDER BY stream_position LIMIT $4`,
    [tenantId, streamId, afterPosition, limit],
  );
  return rows.map(toChainRow);
}

/**
 * Hands every event of a stream to `write` as its export line (`exportLine`), in stream order,
 * reading `pageSize` events at a time, up to stream position `upTo` when given (a consistent
 * prefix of a stream still being written). `write` resolves false to stop early (its reader left)
 * and should wait for its sink to drain. One write per event, not one string per page: a
 * page-sized string is a large V8 object only a full GC reclaims. Returns the events written.
 */
export async function exportStream(
  pool: Pool,
  tenantId: string,
  streamId: string,
  write: (line: string) => Promise<boolean | void>,
  o: { pageSize?: number; upTo?: number } = {},
): Promise<number> {
  let after = 0;
  let n = 0;
  for (;;) {
    const rows = await readChainPage(pool, tenantId, streamId, after, o.pageSize ?? 1000);
    for (const row of rows) {
      if (o.upTo !== undefined && row.streamPosition > o.upTo) return n;
      if ((await write(exportLine(row))) === false) return n;
      n++;
    }
    if (rows.length === 0 || (o.upTo !== undefined && rows[rows.length - 1].streamPosition >= o.upTo)) return n;
    after = rows[rows.length - 1].streamPosition;
  }
}

export interface VerifyFilter {
  tenantId?: string;
  streamId?: string;
}

export interface VerifyReport {
  streams: number;
  events: number;
  /** Events written before the chain existed (no hash). */
  unchained: number;
  broken: BrokenLink[];
}

const PAGE = 2000;

/** One tenant's rows, or (no tenant named: the whole log) system work `audit`. */
function auditScope(tenantId: string | undefined): DbScope {
  return tenantId === undefined ? systemScope('audit') : tenantScope(tenantId);
}

function auditDb(pool: Pool, tenantId: string | undefined): ScopedDb {
  return tenantId === undefined ? asSystem(pool, 'audit') : asTenant(pool, tenantId);
}

/**
 * Checks every chain (of one tenant, or one stream) against the stored events, reading in keyset
 * pages of 2,000 so memory stays flat on any log size, and the head of each stream against its
 * `streams` row. Reports each broken stream's first broken link.
 */
export async function verifyChains(pool: Pool, filter: VerifyFilter = {}, progress?: (done: number) => void): Promise<VerifyReport> {
  if (filter.tenantId !== undefined) checkIds(filter.tenantId, filter.streamId);
  // The heads and every page in one snapshot: a log appended to (or erased from) meanwhile is
  // seen as it was when the check began, not as a head that disagrees with its events. Read
  // only, it takes no transaction id, so it holds no append or subscriber back.
  const client = await pool.connect();
  try {
    await client.query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; ${scopeStatement(auditScope(filter.tenantId))}`);
    const report = await verifyIn(client, filter, progress);
    await client.query('COMMIT');
    return report;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

async function verifyIn(db: ScopedDb, filter: VerifyFilter, progress?: (done: number) => void): Promise<VerifyReport> {
  const report: VerifyReport = { streams: 0, events: 0, unchained: 0, broken: [] };
  const heads = await streamHeads(db, filter);
  let checker: StreamChecker | undefined;
  let last: ChainRow | null = null;
  const finish = () => {
    if (!checker) return;
    const head = heads.get(`${checker.tenantId}/${checker.streamId}`);
    heads.delete(`${checker.tenantId}/${checker.streamId}`);
    const broken = head ? checkHead(checker, last, head) : checker.broken;
    if (broken) report.broken.push(broken);
  };
  let cursor: [string, string, number] = ['00000000-0000-0000-0000-000000000000', '', 0];
  for (;;) {
    const where = [`(tenant_id, stream_id, stream_position) > ($1::uuid, $2, $3)`];
    const params: unknown[] = [...cursor];
    if (filter.tenantId !== undefined) where.push(`tenant_id = $${params.push(filter.tenantId)}`);
    if (filter.streamId !== undefined) where.push(`stream_id = $${params.push(filter.streamId)}`);
    const { rows } = await db.query<RawChainRow>(
      `SELECT ${CHAIN_COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY tenant_id, stream_id, stream_position LIMIT ${PAGE}`,
      params,
    );
    for (const raw of rows) {
      const r = toChainRow(raw);
      if (!checker || checker.tenantId !== r.tenantId || checker.streamId !== r.streamId) {
        finish();
        checker = new StreamChecker(r.tenantId, r.streamId);
        last = null;
        report.streams++;
      }
      if (r.hash === null) report.unchained++;
      checker.next(r);
      last = r;
      report.events++;
    }
    progress?.(report.events);
    if (rows.length < PAGE) break;
    const end = rows[rows.length - 1] as RawChainRow;
    cursor = [end.tenant_id, end.stream_id, end.stream_position];
  }
  finish();
  // Streams whose row says they hold events, none of which is left.
  for (const [key, head] of heads) {
    if (head.version === 0) continue;
    const [tenantId, ...rest] = key.split('/');
    report.streams++;
    report.broken.push({
      tenantId: tenantId ?? '',
      streamId: rest.join('/'),
      streamPosition: 1,
      reason: 'head mismatch',
      detail: `the stream is at version ${head.version} but holds no events: they were deleted`,
    });
  }
  return report;
}

/** Each stream's version and head hash: the anchor to keep outside the database (`hub audit heads`). */
export async function chainHeads(
  pool: Pool,
  tenantId?: string,
): Promise<Array<{ tenantId: string; streamId: string; version: number; lastHash: string | null }>> {
  const heads = await streamHeads(auditDb(pool, tenantId), { tenantId });
  return [...heads].map(([key, h]) => {
    const [t, ...rest] = key.split('/');
    return { tenantId: t ?? '', streamId: rest.join('/'), version: h.version, lastHash: h.lastHash };
  });
}

async function streamHeads(db: ScopedDb, filter: VerifyFilter): Promise<Map<string, { version: number; lastHash: string | null }>> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.tenantId !== undefined) where.push(`tenant_id = $${params.push(filter.tenantId)}`);
  if (filter.streamId !== undefined) where.push(`stream_id = $${params.push(filter.streamId)}`);
  const { rows } = await db.query<{ tenant_id: string; stream_id: string; version: number; last_hash: string | null }>(
    `SELECT tenant_id, stream_id, version, last_hash FROM streams ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY tenant_id, stream_id`,
    params,
  );
  return new Map(rows.map((r) => [`${r.tenant_id}/${r.stream_id}`, { version: r.version, lastHash: r.last_hash }]));
}

/** Verifies an export (NDJSON lines of `exportLine`) offline: the same checks, no database. */
export async function verifyExportLines(lines: AsyncIterable<string>): Promise<VerifyReport> {
  const report: VerifyReport = { streams: 0, events: 0, unchained: 0, broken: [] };
  let checker: StreamChecker | undefined;
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const e = JSON.parse(line) as Omit<ChainRow, 'data' | 'metadata'> & { data: unknown; metadata: unknown };
    if (!checker || checker.tenantId !== e.tenantId || checker.streamId !== e.streamId) {
      if (checker?.broken) report.broken.push(checker.broken);
      checker = new StreamChecker(e.tenantId, e.streamId);
      report.streams++;
    }
    if (e.hash === null) report.unchained++;
    // The stored texts were written by JSON.stringify, so parsing and stringifying again gives
    // the same bytes.
    checker.next({ ...e, data: JSON.stringify(e.data), metadata: JSON.stringify(e.metadata) });
    report.events++;
  }
  if (checker?.broken) report.broken.push(checker.broken);
  return report;
}
