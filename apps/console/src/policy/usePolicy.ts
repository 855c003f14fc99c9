import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@harness-hub/client';
import type { HubApi } from '../api/client';

// The tenant's approval policy through the admin API (issue 23, docs/approval-policy.md); the
// answers are the ones the OpenAPI document describes.
export type PolicyView = components['schemas']['PolicyView'];
export type PolicyExplanation = components['schemas']['PolicyExplanation'];

export function usePolicy(api: HubApi) {
  return useQuery({ queryKey: ['admin-policy'], queryFn: () => api.get('/v1/admin/policy'), retry: false });
}

/** Replaces the policy (admin); `expectedVersion` refuses it (409) when someone changed it since it was read. */
export function useSetPolicy(api: HubApi) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ policy, expectedVersion }: { policy: unknown; expectedVersion: number }) =>
      api.send<PolicyView>('PUT', `/v1/admin/policy?expectedVersion=${expectedVersion}`, policy),
    onSuccess: (data) => qc.setQueryData(['admin-policy'], data),
  });
}

export function useExplain(api: HubApi) {
  return useMutation({ mutationFn: (body: Record<string, unknown>) => api.post('/v1/admin/policy/explain', {}, body) });
}
