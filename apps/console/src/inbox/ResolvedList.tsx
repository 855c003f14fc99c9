import { useInfiniteQuery } from '@tanstack/react-query';
import type { HubApi } from '../api/client';
import { actorName, protocolName, time } from '../ui/format';
import { Arguments } from './Arguments';

/** Answered approvals, newest first: who, via which protocol, when and why. */
export function ResolvedList({ api }: { api: HubApi }) {
  const q = useInfiniteQuery({
    queryKey: ['approvals', 'resolved'],
    queryFn: ({ pageParam }) => api.approvals({ status: 'resolved', limit: 50, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  if (q.isPending) return <p className="state loading">Loading resolved approvals…</p>;
  if (q.isError)
    return (
      <p className="state error" role="alert">
        Could not load resolved approvals: {q.error.message}
      </p>
    );
  const items = q.data.pages.flatMap((p) => p.approvals);
  if (items.length === 0) return <p className="state empty">No approval has been answered yet.</p>;
  return (
    <>
      <ul className="cards resolved">
        {items.map((a) => (
          <li key={a.approvalId} className="card" data-approval-id={a.approvalId}>
            <header className="card-head">
              <span className="tool">{a.toolName}</span>
              <span className={`risk risk-${a.riskTier}`}>{a.riskTier} risk</span>
              <span className={`decision decision-${a.resolution?.decision}`}>{a.resolution?.decision}</span>
            </header>
            <Arguments args={a.arguments} />
            <p className="meta muted resolution">
              {a.resolution
                ? `${a.resolution.decision} by ${actorName(a.resolution.by)} via ${protocolName(a.resolution.via)} at ${time(a.resolution.at)}`
                : ''}
              {a.resolution?.reason ? ` — “${a.resolution.reason}”` : ''}
            </p>
            <p className="meta muted">
              session <a href={`/console/sessions/${encodeURIComponent(a.sessionId)}`}>{a.sessionId}</a> · requested via {protocolName(a.requestedVia)}
            </p>
          </li>
        ))}
      </ul>
      {q.hasNextPage && (
        <button type="button" onClick={() => void q.fetchNextPage()} disabled={q.isFetchingNextPage}>
          {q.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      )}
    </>
  );
}
