import type { FeedLink, SessionErasure, SessionFeedData } from '@harness-hub/client';
import { useQueryClient } from '@tanstack/react-query';
import type { HubApi } from '../api/client';
import type { SessionSummary } from '../api/types';
import { useLiveFeed } from '../api/useLiveFeed';
import { applySessionChange, applySessionErasure, type SessionFilters, type SessionPages } from './live-sessions';

/**
 * Keeps every loaded sessions list live: `GET /v1/sessions/stream` (the client's sessions feed)
 * sends each session as it moves and each one erased, and each is applied to the cached pages of
 * every filter (applySessionChange, applySessionErasure) instead of refetching them. Returns the
 * feed's status for the screen to show.
 */
export function useSessionFeed(api: HubApi, onUnauthenticated: (message: string) => void): { status: FeedLink; error: string | null } {
  const queryClient = useQueryClient();
  const apply = (s: SessionSummary) => {
    for (const q of queryClient.getQueryCache().findAll({ queryKey: ['sessions'] })) {
      const [, status, protocol] = q.queryKey as [string, SessionFilters['status'], SessionFilters['protocol']];
      queryClient.setQueryData<SessionPages>(q.queryKey, (data) => applySessionChange(data, s, { status, protocol }));
      // A page still on its way may have been read before this change: read it again.
      if (q.state.data === undefined || q.state.fetchStatus === 'fetching') void queryClient.invalidateQueries({ queryKey: q.queryKey, exact: true });
    }
  };
  // The feed starts at the newest session when it first connects; a list loaded before that
  // could miss what moved in between, so it is read once more then. Resumes need nothing.
  const reread = () => void queryClient.invalidateQueries({ queryKey: ['sessions'] });
  // An erased session leaves every list; its page, if open, finds it gone at its next read.
  const erase = (e: SessionErasure) => queryClient.setQueriesData<SessionPages>({ queryKey: ['sessions'] }, (data) => applySessionErasure(data, e));
  return useLiveFeed<SessionFeedData>(
    api,
    'sessions',
    { session: (data) => apply(data as SessionSummary), erased: (data) => void erase(data as SessionErasure) },
    onUnauthenticated,
    reread,
  );
}
