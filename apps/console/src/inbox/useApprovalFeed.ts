import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiError, type HubApi } from '../api/client';
import { readSse } from '../api/sse';
import type { Approval } from '../api/types';

export type FeedStatus = 'connecting' | 'live' | 'reconnecting' | 'error';

export interface ApprovalFeed {
  pending: Approval[];
  status: FeedStatus;
  error: string | null;
}

const RETRY_MS = [500, 1000, 2000, 5000];

/**
 * The tenant's pending approvals, live: `GET /v1/approvals/stream` sends every pending approval,
 * then each change. A dropped stream resumes after the last position seen (nothing is missed,
 * nothing refetched); a refused key ends it with `onUnauthenticated`. A resolved approval leaves
 * the list and refreshes the resolved tab's query.
 */
export function useApprovalFeed(api: HubApi, onUnauthenticated: (message: string) => void): ApprovalFeed {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<Map<string, Approval>>(new Map());
  const [status, setStatus] = useState<FeedStatus>('connecting');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const abort = new AbortController();
    let after: number | undefined;
    const apply = (a: Approval) => {
      after = Math.max(after ?? 0, a.position);
      setPending((prev) => {
        const next = new Map(prev);
        if (a.status === 'pending') next.set(a.approvalId, a);
        else next.delete(a.approvalId);
        return next;
      });
      if (a.status === 'resolved') void queryClient.invalidateQueries({ queryKey: ['approvals', 'resolved'] });
    };
    const run = async () => {
      for (let attempt = 0; !abort.signal.aborted; attempt++) {
        try {
          const url = after === undefined ? '/v1/approvals/stream' : `/v1/approvals/stream?after=${after}`;
          await readSse(url, api.authHeaders(), (e) => {
            if (e.event === 'approval') apply(JSON.parse(e.data) as Approval);
            if (e.event === 'ready') {
              after = Math.max(after ?? 0, (JSON.parse(e.data) as { position: number }).position);
              attempt = 0;
              setStatus('live');
              setError(null);
            }
          }, abort.signal);
        } catch (e) {
          if (abort.signal.aborted) return;
          if (e instanceof ApiError && e.status === 401) return onUnauthenticated(e.message);
          setError(e instanceof Error ? e.message : String(e));
        }
        if (abort.signal.aborted) return;
        setStatus(attempt >= RETRY_MS.length ? 'error' : 'reconnecting');
        await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
      }
    };
    void run();
    return () => abort.abort();
  }, [api, queryClient, onUnauthenticated]);

  const list = [...pending.values()].sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));
  return { pending: list, status, error };
}
