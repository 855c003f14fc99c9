import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { sessionStreamId } from '@hub/domain';
import { chainHeads, createPool, exportStream, verifyChains, verifyExportLines, type VerifyReport } from '@hub/event-store';

type Out = (line: string) => void;

function printReport(report: VerifyReport, out: Out, say: Out): number {
  for (const b of report.broken) out(JSON.stringify({ broken: true, ...b }));
  out(
    JSON.stringify({
      ok: report.broken.length === 0,
      streams: report.streams,
      events: report.events,
      unchained: report.unchained,
      broken: report.broken.length,
    }),
  );
  if (report.unchained > 0) say(`audit: ${report.unchained} events were written before the hash chain existed and are not covered`);
  return report.broken.length === 0 ? 0 : 1;
}

/**
 * `hub audit verify`: re-hashes every chain (of a tenant, of one session) from the database, or an
 * export file offline (`--file`), and prints each broken stream's first broken link (stream,
 * position, reason) as a JSON line, then a summary. Exit 0 intact, 1 broken.
 */
export async function auditVerify(o: { databaseUrl: string; tenantId?: string; sessionId?: string; file?: string }, out: Out, say: Out): Promise<number> {
  if (o.file !== undefined) {
    const lines = createInterface({ input: createReadStream(o.file), crlfDelay: Infinity });
    return printReport(await verifyExportLines(lines), out, say);
  }
  if (o.sessionId !== undefined && o.tenantId === undefined) throw new Error('audit verify --session needs --tenant');
  const pool = createPool(o.databaseUrl, { max: 2 });
  try {
    let lastSaid = 0;
    const report = await verifyChains(
      pool,
      { tenantId: o.tenantId, streamId: o.sessionId === undefined ? undefined : sessionStreamId(o.sessionId) },
      (done) => {
        if (done - lastSaid >= 100_000) say(`audit: ${(lastSaid = done)} events checked`);
      },
    );
    return printReport(report, out, say);
  } finally {
    await pool.end();
  }
}

/** `hub audit heads`: each stream's version and head hash, the anchor to keep outside the database. */
export async function auditHeads(o: { databaseUrl: string; tenantId?: string }, out: Out): Promise<number> {
  const pool = createPool(o.databaseUrl, { max: 1 });
  try {
    for (const h of await chainHeads(pool, o.tenantId)) out(JSON.stringify(h));
    return 0;
  } finally {
    await pool.end();
  }
}

/** `hub export SESSION --tenant T`: the session's events as NDJSON with their hashes, streamed in pages. */
export async function exportSession(
  o: { databaseUrl: string; tenantId: string; sessionId: string },
  write: (chunk: string) => Promise<void>,
  say: Out,
): Promise<number> {
  const pool = createPool(o.databaseUrl, { max: 1 });
  try {
    let n = 0;
    await exportStream(pool, o.tenantId, sessionStreamId(o.sessionId), async (line) => {
      await write(line);
      if (++n % 100_000 === 0) say(`export: ${n} events`);
    });
    if (n === 0) {
      say(`export: no session ${o.sessionId} in tenant ${o.tenantId}`);
      return 1;
    }
    return 0;
  } finally {
    await pool.end();
  }
}
