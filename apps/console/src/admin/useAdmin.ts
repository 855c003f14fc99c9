import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { HubApi } from '../api/client';

// The answers of /v1/admin/keys and /v1/admin/limits as the hub's AdminController gives them.
// The OpenAPI document does not describe these answers (the controller has no response schemas
// in api-schemas.ts), so they are written out here once, as the webhooks screen does.

/** What the admin API may make a key (libs/auth ROLES). */
export const ROLES = ['admin', 'operator', 'approver', 'viewer', 'client'] as const;
export type Role = (typeof ROLES)[number];

export interface ApiKey {
  prefix: string;
  name: string;
  role: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
export interface NewKey {
  apiKey: string;
  prefix: string;
  name: string;
  role: string;
  expiresAt: string | null;
}

/** The tenant limits (libs/domain TenantLimits), each a positive integer or null (no limit). */
export const LIMITS = [
  { name: 'turnsPerMinute', label: 'Turns per minute' },
  { name: 'concurrentTurns', label: 'Turns running at once' },
  { name: 'tokensPerDay', label: 'Model tokens per 24 h' },
  { name: 'sessions', label: 'Sessions' },
  { name: 'openSockets', label: 'Open WebSockets' },
  { name: 'eventBytesPerDay', label: 'Event bytes per 24 h' },
  { name: 'retentionDays', label: 'Retention (days idle)' },
] as const;
export type LimitName = (typeof LIMITS)[number]['name'];
export type Limits = Record<LimitName, number | null>;

export function useKeys(api: HubApi) {
  return useQuery({ queryKey: ['admin-keys'], queryFn: () => api.send<{ keys: ApiKey[] }>('GET', '/v1/admin/keys'), retry: false });
}

export function useCreateKey(api: HubApi) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (k: { name: string; role: Role; expiresAt?: string }) => api.send<NewKey>('POST', '/v1/admin/keys', k),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['admin-keys'] }),
  });
}

export function useRevokeKey(api: HubApi) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (prefix: string) => api.send<{ prefix: string; revoked: boolean }>('DELETE', `/v1/admin/keys/${encodeURIComponent(prefix)}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['admin-keys'] }),
  });
}

export function useLimits(api: HubApi) {
  return useQuery({ queryKey: ['admin-limits'], queryFn: () => api.send<{ limits: Limits }>('GET', '/v1/admin/limits'), retry: false });
}

export function useSetLimits(api: HubApi) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (limits: Limits) => api.send<{ limits: Limits }>('PUT', '/v1/admin/limits', limits),
    onSuccess: (data) => qc.setQueryData(['admin-limits'], data),
  });
}

/** A key as a person reads its state: revoked, expired or live. */
export function keyState(k: ApiKey, now: number): 'revoked' | 'expired' | 'live' {
  if (k.revokedAt) return 'revoked';
  if (k.expiresAt && Date.parse(k.expiresAt) <= now) return 'expired';
  return 'live';
}
