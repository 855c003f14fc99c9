import { useQuery } from '@tanstack/react-query';
import type { HubApi } from '../api/client';
import type { Ok } from '../api/types';

export type UsageReport = Ok<'/v1/usage', 'get'>;
export type UsageDay = UsageReport['days'][number];
export type UsageTotals = UsageReport['totals'];

export interface UsageQuery {
  from: string;
  to: string;
  key: string;
}

/** `GET /v1/usage` for a range (and a key, when one is typed), refreshed every 10 s. */
export function useUsage(api: HubApi, q: UsageQuery) {
  return useQuery({
    queryKey: ['usage', q.from, q.to, q.key],
    queryFn: () => api.get('/v1/usage', {}, { from: q.from, to: q.to, key: q.key.trim() || undefined }),
    refetchInterval: 10_000,
  });
}
