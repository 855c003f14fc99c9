import type { SessionErasure } from '@harness-hub/client';
import type { QueryOf, SessionSummary } from '../api/types';

/** The sessions list's filters, as its query key carries them. */
export type SessionFilters = Pick<QueryOf<'/v1/sessions', 'get'>, 'status' | 'protocol'>;

/** The loaded pages of the sessions list (react-query's infinite data). */
export interface SessionPages {
  pages: { sessions: SessionSummary[]; nextCursor?: string | null }[];
  pageParams: unknown[];
}

/** Whether a session belongs in a list with these filters. */
export function matches(s: SessionSummary, f: SessionFilters): boolean {
  return (f.status === undefined || s.status === f.status) && (f.protocol === undefined || s.openedVia === f.protocol);
}

/**
 * The list after one change of the sessions feed. The list is most recently active first and a
 * change is the newest activity there is, so the session leaves the page it was on and, when it
 * still matches the filters, goes to the top. A change older than the row shown is ignored (a
 * resumed feed may repeat one). Later pages keep their keyset cursors: a moved session's position
 * is above them, so it cannot come back on a page loaded afterwards.
 */
export function applySessionChange(data: SessionPages | undefined, s: SessionSummary, f: SessionFilters): SessionPages | undefined {
  if (!data || data.pages.length === 0) return data;
  const shown = data.pages.flatMap((p) => p.sessions).find((x) => x.sessionId === s.sessionId);
  if (shown && shown.position >= s.position) return data;
  const pages = data.pages.map((p) => ({ ...p, sessions: p.sessions.filter((x) => x.sessionId !== s.sessionId) }));
  if (matches(s, f)) pages[0] = { ...pages[0], sessions: [s, ...pages[0].sessions] };
  return { ...data, pages };
}

/** The list after a session was erased: it leaves whichever page showed it. */
export function applySessionErasure(data: SessionPages | undefined, e: SessionErasure): SessionPages | undefined {
  if (!data || !data.pages.some((p) => p.sessions.some((x) => x.sessionId === e.sessionId))) return data;
  return { ...data, pages: data.pages.map((p) => ({ ...p, sessions: p.sessions.filter((x) => x.sessionId !== e.sessionId) })) };
}
