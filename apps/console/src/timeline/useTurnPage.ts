import { useQuery } from '@tanstack/react-query';
import type { HubApi } from '../api/client';
import { turnTimelines, type TurnTimeline } from './turn-steps';
import type { RecordedEvent } from '../api/types';
import type { ReadEvents } from './turn-paging';

/** Turns drawn on one page: a 1,000-turn session is read and drawn ten turns at a time. */
export const TURNS_PER_PAGE = 10;
// A page of ten turns is tens of events (thousands when a turn streams long answers): read in small steps.
const EVENTS_PER_READ = 250;
/** Reads past a page's last request while its turns run on (a turn of thousands of text deltas). */
const MAX_EXTRA_READS = 80;

export interface TurnPage {
  turns: TurnTimeline[];
  /** Where the next page starts (the `after` of its first read), or null when this is the last. */
  next: number | null;
}

/**
 * One page of turns starting after stream position `after`: the events are read forward until
 * the page has its turns' requests and every one of them has ended (or the log ends). The next
 * page starts just before the first request this page does not take.
 */
export async function readTurnPage(api: HubApi, sessionId: string, after: number): Promise<TurnPage> {
  const events: RecordedEvent[] = [];
  let next: number | null = null;
  let cursor = after;
  const mine = new Set<string>();
  const ended = new Set<string>();
  for (let reads = 0; reads < MAX_EXTRA_READS; reads++) {
    const page = await api.events(sessionId, cursor, EVENTS_PER_READ);
    for (const e of page.events) {
      const turnId = (e.data as { turnId?: unknown }).turnId;
      if (e.type === 'TurnRequested' && typeof turnId === 'string') {
        if (mine.size === TURNS_PER_PAGE) next ??= e.streamPosition - 1;
        else mine.add(turnId);
      }
      const own = typeof turnId === 'string' && mine.has(turnId);
      if (own || (e.type === 'UserMessageInjected' && mine.has(String((e.data as { fromTurnId?: unknown }).fromTurnId)))) events.push(e);
      if (own && ['TurnCompleted', 'TurnFailed', 'TurnCancelled'].includes(e.type)) ended.add(turnId);
    }
    if (page.next === null || page.events.length === 0) break;
    cursor = page.next;
    if (next !== null && ended.size === mine.size) break;
  }
  return { turns: turnTimelines(events), next };
}

export function useTurnPage(api: HubApi, sessionId: string, after: number) {
  return useQuery({ queryKey: ['turn-page', sessionId, after], queryFn: () => readTurnPage(api, sessionId, after), refetchInterval: 3000 });
}

/** The events API of one session as turn-paging.ts reads it. */
export function eventReader(api: HubApi, sessionId: string): ReadEvents {
  return (after, limit) => api.events(sessionId, after, limit);
}

/** How many turns the session has (its turns read model, 200 a read). */
export async function turnCount(api: HubApi, sessionId: string): Promise<number> {
  let total = 0;
  let cursor: string | undefined;
  do {
    const page = await api.get('/v1/sessions/{id}/turns', { id: sessionId }, { limit: 200, ...(cursor ? { cursor } : {}) });
    total += page.turns.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return total;
}

/** The turn `turnId` of the session read from stream position `after` on, up to its end (or the end of the log). */
export async function readTurn(api: HubApi, sessionId: string, turnId: string, after: number): Promise<TurnTimeline | null> {
  const events: RecordedEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await api.events(sessionId, cursor, EVENTS_PER_READ * 4);
    let ended = false;
    for (const e of page.events) {
      const data = e.data as { turnId?: unknown; fromTurnId?: unknown };
      const mine = e.type === 'UserMessageInjected' ? data.fromTurnId === turnId : data.turnId === turnId;
      if (!mine) continue;
      events.push(e);
      if (['TurnCompleted', 'TurnFailed', 'TurnCancelled', 'UserMessageInjected'].includes(e.type)) ended = true;
    }
    if (ended || page.next === null || page.events.length === 0) break;
    cursor = page.next;
  }
  return turnTimelines(events)[0] ?? null;
}

export function useTurn(api: HubApi, sessionId: string, turnId: string, after: number) {
  return useQuery({
    queryKey: ['turn', sessionId, turnId, after],
    queryFn: () => readTurn(api, sessionId, turnId, after),
    // A turn still running is followed; an ended one is final.
    refetchInterval: (q) => (q.state.data && ['queued', 'running'].includes(q.state.data.status) ? 3000 : false),
  });
}
