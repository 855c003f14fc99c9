/**
 * Pure (given a reader): how the turn timeline jumps to its last page, and back from it, without
 * reading a whole session's log (issue 26: a 1,000-turn session). The events API reads forward
 * only (`?after=&limit=`), so the end of the stream is found by probing it (doubling, then
 * halving), and the turns before a position by reading back from it a chunk at a time.
 */

/** One page of a session's events, as `GET /v1/sessions/ID/events?after=&limit=` answers. */
export type ReadEvents = (after: number, limit: number) => Promise<{ events: { type: string; streamPosition: number }[]; next: number | null }>;

const BACK_CHUNK = 250;

/** The stream position of the session's last event (0 for none): about 2·log2(n) one-event reads. */
export async function streamEnd(read: ReadEvents): Promise<number> {
  const exists = async (position: number) => (await read(position - 1, 1)).events.length > 0;
  if (!(await exists(1))) return 0;
  let low = 1; // exists
  let high = 2;
  while (await exists(high)) {
    low = high;
    high *= 2;
  }
  // low exists, high does not.
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (await exists(mid)) low = mid;
    else high = mid;
  }
  return low;
}

/**
 * The stream positions of the last `n` turn requests before position `before` (exclusive),
 * oldest first (fewer when the stream has fewer), read back from `before` in chunks.
 */
export async function requestsBefore(read: ReadEvents, before: number, n: number): Promise<number[]> {
  const found: number[] = [];
  let end = before; // exclusive
  while (found.length < n && end > 1) {
    const from = Math.max(0, end - 1 - BACK_CHUNK);
    const page = await read(from, end - 1 - from);
    const here = page.events.filter((e) => e.type === 'TurnRequested' && e.streamPosition < end).map((e) => e.streamPosition);
    found.unshift(...here.slice(Math.max(0, here.length - (n - found.length))));
    end = from + 1;
  }
  return found;
}

/** Where a page of the timeline starts: the `after` of its first read, and its number (from 1). */
export interface PageStart {
  after: number;
  page: number;
}

/** The last page of `total` turns, `perPage` a page (pages stay those that paging forward from the first gives). */
export async function lastPage(read: ReadEvents, total: number, perPage: number): Promise<PageStart> {
  if (total <= perPage) return { after: 0, page: 1 };
  const onLast = ((total - 1) % perPage) + 1;
  const end = await streamEnd(read);
  const [first] = await requestsBefore(read, end + 1, onLast);
  return { after: first === undefined ? 0 : first - 1, page: Math.ceil(total / perPage) };
}

/** The page before one that starts at `start` (its first turn request at `start.after + 1`). */
export async function pageBefore(read: ReadEvents, start: PageStart, perPage: number): Promise<PageStart> {
  if (start.page <= 2) return { after: 0, page: 1 };
  const [first] = await requestsBefore(read, start.after + 1, perPage);
  return { after: first === undefined ? 0 : first - 1, page: start.page - 1 };
}
