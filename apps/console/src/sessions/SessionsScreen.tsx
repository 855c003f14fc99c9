import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { HubApi } from '../api/client';
import { PROTOCOLS, SESSION_STATUSES, type QueryOf } from '../api/types';
import { ago, protocolName } from '../ui/format';
import { useNow } from '../ui/useNow';
import { useSessionFeed } from './useSessionFeed';
import { FeedBadge } from '../ui/FeedBadge';

/**
 * The tenant's sessions from the read model, most recently active first, live: the sessions feed
 * moves each row as its session changes (useSessionFeed). An erased session leaves on the next load.
 */
export function SessionsScreen({ api, onUnauthenticated }: { api: HubApi; onUnauthenticated: (message: string) => void }) {
  type Filters = QueryOf<'/v1/sessions', 'get'>;
  const [status, setStatus] = useState<Filters['status']>(undefined);
  const [protocol, setProtocol] = useState<Filters['protocol']>(undefined);
  const now = useNow(5000);
  const q = useInfiniteQuery({
    queryKey: ['sessions', status, protocol],
    queryFn: ({ pageParam }) => api.sessions({ status, protocol, cursor: pageParam, limit: 25 }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const feed = useSessionFeed(api, onUnauthenticated);
  // A page loaded while its session moved can hold it twice for a moment: the first (newest) wins.
  const seen = new Set<string>();
  const items = (q.data?.pages.flatMap((p) => p.sessions) ?? []).filter((s) => !seen.has(s.sessionId) && seen.add(s.sessionId));
  return (
    <section className="screen sessions">
      <div className="filters">
        <label>
          Status{' '}
          <select value={status ?? ''} onChange={(e) => setStatus(SESSION_STATUSES.find((x) => x === e.target.value))}>
            <option value="">any</option>
            {SESSION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          Protocol{' '}
          <select value={protocol ?? ''} onChange={(e) => setProtocol(PROTOCOLS.find((x) => x === e.target.value))}>
            <option value="">any</option>
            {PROTOCOLS.map((p) => (
              <option key={p} value={p}>
                {protocolName(p)}
              </option>
            ))}
          </select>
        </label>
        <FeedBadge status={feed.status} error={feed.error} />
      </div>
      {q.isPending ? (
        <p className="state loading">Loading sessions…</p>
      ) : q.isError ? (
        <p className="state error" role="alert">
          Could not load sessions: {q.error.message}
        </p>
      ) : items.length === 0 ? (
        <p className="state empty">No session matches.</p>
      ) : (
        <table className="session-table">
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Status</th>
              <th scope="col">Protocol</th>
              <th scope="col">Turns</th>
              <th scope="col">Pending</th>
              <th scope="col">Tokens</th>
              <th scope="col">Active</th>
            </tr>
          </thead>
          <tbody>
            {items.map((s) => (
              <tr key={s.sessionId} data-session-id={s.sessionId}>
                <td>
                  <a href={`/console/sessions/${encodeURIComponent(s.sessionId)}`}>{s.sessionId}</a>
                  {s.title && <div className="muted title">{s.title}</div>}
                </td>
                <td className={`status status-${s.status}`}>{s.status.replace('_', ' ')}</td>
                <td>{protocolName(s.openedVia)}</td>
                <td>{s.turnCount}</td>
                <td>{s.pendingApprovals}</td>
                <td>{s.usage.totalTokens}</td>
                <td title={s.lastActivityAt}>{ago(s.lastActivityAt, now)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {q.hasNextPage && (
        <button type="button" onClick={() => void q.fetchNextPage()} disabled={q.isFetchingNextPage}>
          {q.isFetchingNextPage ? 'Loading…' : 'Older sessions'}
        </button>
      )}
    </section>
  );
}
