import type { FeedLink } from '@harness-hub/client';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { HubApi } from '../api/client';
import type { Approval } from '../api/types';
import { useLiveFeed } from '../api/useLiveFeed';

export interface ApprovalFeed {
  pending: Approval[];
  status: FeedLink;
  error: string | null;
}

/**
 * The tenant's pending approvals, live: `GET /v1/approvals/stream` sends every pending approval,
 * then each change. A dropped stream resumes after the last position seen (the client's
 * EventFeed); a refused key ends it with `onUnauthenticated`. A resolved approval leaves the list
 * and refreshes the resolved tab's query.
 */
export function useApprovalFeed(api: HubApi, onUnauthenticated: (message: string) => void): ApprovalFeed {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<Map<string, Approval>>(new Map());
  const apply = (a: Approval) => {
    setPending((prev) => {
      const next = new Map(prev);
      if (a.status === 'pending') next.set(a.approvalId, a);
      else next.delete(a.approvalId);
      return next;
    });
    if (a.status === 'resolved') void queryClient.invalidateQueries({ queryKey: ['approvals', 'resolved'] });
  };
  const feed = useLiveFeed<Approval>(api, 'approvals', { approval: apply }, onUnauthenticated);
  const list = [...pending.values()].sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));
  return { pending: list, ...feed };
}
