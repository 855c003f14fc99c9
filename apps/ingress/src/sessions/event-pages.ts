import type { Response } from 'express';
import { DomainError, type HubEvent, type Recorded } from '@hub/domain';
import type { EventStore } from '@hub/event-store';
import { QueryParams } from '../http/query-params';
import { onlyKnown } from '../read-models/query';

// The audit read of one session's log, in bounded pieces (issue 11, defect 5): one unbounded
// response was 25.8 MB and 60 parallel exports took ingress to 1.44 GB. A page is a keyset read on
// the stream position; the full export streams NDJSON page by page, so memory stays flat.

/** `GET /v1/sessions/ID/events` page size: `limit` defaults to 500 and may be 1 to 1000. */
export const EVENTS_PAGE = { default: 500, max: 1000 } as const;
/** `GET /v1/sessions/ID/events`. */
export const EVENTS_PAGE_QUERY = new QueryParams([
  {
    name: 'after',
    description: 'Stream position to read after (exclusive); 0, the default, reads from the start',
    integer: { minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
  },
  { name: 'limit', description: 'Events per page', integer: { minimum: 1, maximum: EVENTS_PAGE.max, default: EVENTS_PAGE.default } },
]);
/** Events per read while streaming the NDJSON export. */
export const EXPORT_PAGE = 50;

export interface PageQuery {
  /** Stream position to read after (exclusive); 0 reads from the start. */
  after: number;
  limit: number;
}

const invalid = (field: string, expected: string) => new DomainError('INVALID_COMMAND', `${field}: expected ${expected}`, { field });

function intParam(query: Record<string, unknown>, field: string, fallback: number, min: number, max: number): number {
  const raw = query[field];
  if (raw === undefined) return fallback;
  const n = typeof raw === 'string' && /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!(Number.isSafeInteger(n) && n >= min && n <= max)) throw invalid(field, `an integer from ${min} to ${max}`);
  return n;
}

/** `after` and `limit` of a page request, or `INVALID_COMMAND` naming the field (a 400). */
export function pageQuery(query: Record<string, unknown>): PageQuery {
  onlyKnown(query, EVENTS_PAGE_QUERY.names);
  return {
    after: intParam(query, 'after', 0, 0, Number.MAX_SAFE_INTEGER),
    limit: intParam(query, 'limit', EVENTS_PAGE.default, 1, EVENTS_PAGE.max),
  };
}

export interface EventPage {
  events: Recorded<HubEvent>[];
  /** The `after` of the next page, or null when this page reached the end of the stream. */
  next: number | null;
  /** The stream's version when this page was read. */
  version: number;
}

/** One keyset page; `SESSION_NOT_FOUND` when the tenant has no such stream. */
export async function readPage(store: EventStore, tenantId: string, streamId: string, sessionId: string, q: PageQuery): Promise<EventPage> {
  const { version, events } = await store.readStream<HubEvent>(tenantId, streamId, { fromVersion: q.after, maxCount: q.limit });
  if (version === 0) throw new DomainError('SESSION_NOT_FOUND', `session ${sessionId} not found`);
  const last = events.length > 0 ? events[events.length - 1].streamPosition : q.after;
  return { events: events as Recorded<HubEvent>[], next: last < version ? last : null, version };
}

/**
 * Writes the whole stream as NDJSON (one event per line: its envelope, its stored `data` and
 * `metadata` texts byte for byte, `hash` and `prevHash`, so the export verifies offline with
 * `hub audit verify --file`), reading it page by page and waiting for the socket to drain
 * between pages. It stops at the version the first read saw, so the export is one consistent
 * prefix of the log, and stops early when the client goes away.
 */
export async function streamExport(store: EventStore, tenantId: string, streamId: string, sessionId: string, res: Response): Promise<void> {
  const { version: upTo } = await readPage(store, tenantId, streamId, sessionId, { after: 0, limit: 1 });
  res.status(200).type('application/x-ndjson');
  try {
    // One write per event (60 parallel exports piled up page-sized strings); a client that left stops it.
    let left = false;
    const write = async (line: string) => {
      if (await written(res, line)) return true;
      left = true;
      return false;
    };
    await store.exportStream(tenantId, streamId, write, { pageSize: EXPORT_PAGE, upTo });
    if (left) return;
  } catch (e) {
    // Headers are out: a truncated body (the socket reset) is the only honest signal left.
    res.destroy(e as Error);
    throw e;
  }
  res.end();
}

/** Resolves true once `chunk` is handed on (after a drain when the buffer was full), false if the client left. */
function written(res: Response, chunk: string): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  if (res.write(chunk)) return Promise.resolve(true);
  return new Promise((resolve) => {
    // Both listeners are removed whichever fires: one export must not leave listeners behind.
    const done = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}
