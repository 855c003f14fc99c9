import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { problemOf, type HubApi } from '../api/client';

// The answers of /v1/webhooks as the hub's WebhooksController gives them (libs/webhooks
// EndpointView, MessageView, AttemptView). The OpenAPI document does not describe these answers
// yet (the controller has no response schemas in api-schemas.ts), so they are written out here
// once; when it does, take them from api/types.ts like the other screens.

export interface Endpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}
export interface Message {
  id: string;
  eventType: string;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  createdAt: string;
}
export interface Attempt {
  messageId: string;
  eventType: string;
  attempt: number;
  startedAt: string;
  latencyMs: number;
  responseStatus: number | null;
  outcome: string;
  error: string | null;
  nextAttemptAt: string | null;
}

/** What an endpoint may subscribe to (libs/webhooks WEBHOOK_EVENT_TYPES), and `*`: every type, present and future. */
export const EVENT_TYPES = ['approval.requested', 'approval.resolved', 'approval.expired', 'turn.completed', 'turn.failed', 'session.opened'] as const;
export const WILDCARD = '*';

const at = (id: string, rest = '') => `/v1/webhooks/${encodeURIComponent(id)}${rest}`;

export function useEndpoints(api: HubApi) {
  return useQuery({ queryKey: ['webhooks'], queryFn: () => api.send<{ endpoints: Endpoint[] }>('GET', '/v1/webhooks'), refetchInterval: 5_000 });
}

export function useLinkSettings(api: HubApi) {
  return useQuery({ queryKey: ['webhook-settings'], queryFn: () => api.send<{ approvalLinks: boolean }>('GET', '/v1/webhook-settings') });
}

/**
 * Whether this key may change webhooks (admin, operator). The API has no "who am I", so the
 * screen asks with a change the hub cannot apply (an empty settings body): the hub checks the
 * role before it reads the body, so a key that may not manage is refused with 403 and one that
 * may is told its body is wrong (400). Nothing changes either way.
 */
export function useMayManage(api: HubApi) {
  return useQuery({
    queryKey: ['webhooks-may-manage'],
    staleTime: Infinity,
    retry: false,
    queryFn: async () => {
      const res = await fetch('/v1/webhook-settings', { method: 'PUT', headers: { ...api.authHeaders(), 'Content-Type': 'application/json' }, body: '{}' });
      if (res.status === 403) return false;
      if (res.status === 400) return true;
      throw await problemOf(res);
    },
  });
}

/** The endpoint's messages and its attempts (newest first), refreshed while it is open: attempts happen on their own. */
export function useDeliveryLog(api: HubApi, id: string) {
  const messages = useQuery({
    queryKey: ['webhook-messages', id],
    queryFn: () => api.send<{ messages: Message[] }>('GET', at(id, '/messages?limit=50')),
    refetchInterval: 2_000,
  });
  const attempts = useQuery({
    queryKey: ['webhook-attempts', id],
    queryFn: () => api.send<{ attempts: Attempt[] }>('GET', at(id, '/attempts?limit=200')),
    refetchInterval: 2_000,
  });
  return { messages, attempts };
}

export type EndpointAction =
  | { kind: 'enable'; enabled: boolean }
  | { kind: 'rotate' }
  | { kind: 'test' }
  | { kind: 'delete' }
  | { kind: 'redeliver'; messageId: string }
  | { kind: 'redeliver-since'; since: string };

/** One change to an endpoint; answers what to tell the person (a rotated secret is in `secret`, shown once). */
export function useEndpointAction(api: HubApi, id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (a: EndpointAction): Promise<{ said: string; secret?: string }> => {
      switch (a.kind) {
        case 'enable':
          await api.send('PATCH', at(id), { enabled: a.enabled });
          return { said: a.enabled ? 'enabled' : 'disabled' };
        case 'rotate': {
          const r = await api.send<{ secret: string }>('POST', at(id, '/rotate'), {});
          return { said: 'secret rotated; the previous one signs too until the overlap ends', secret: r.secret };
        }
        case 'test': {
          const r = await api.send<{ messageId: string }>('POST', at(id, '/test'), {});
          return { said: `test event sent (${r.messageId})` };
        }
        case 'delete':
          await api.send('DELETE', at(id));
          return { said: 'deleted' };
        case 'redeliver':
        case 'redeliver-since': {
          const r = await api.send<{ redelivering: number }>(
            'POST',
            at(id, '/redeliver'),
            a.kind === 'redeliver' ? { messageId: a.messageId } : { since: a.since },
          );
          return { said: `${r.redelivering} message(s) redelivering` };
        }
      }
    },
    onSettled: () => Promise.all(['webhooks', 'webhook-messages', 'webhook-attempts'].map((k) => queryClient.invalidateQueries({ queryKey: [k] }))),
  });
}

export function useCreateEndpoint(api: HubApi) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { url: string; events: string[]; description: string }) =>
      api.send<{ id: string; secret: string }>('POST', '/v1/webhooks', {
        url: input.url,
        events: input.events,
        ...(input.description.trim() ? { description: input.description.trim() } : {}),
      }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['webhooks'] }),
  });
}

export function useSetLinks(api: HubApi) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (approvalLinks: boolean) => api.send<{ approvalLinks: boolean }>('PUT', '/v1/webhook-settings', { approvalLinks }),
    onSuccess: (answer) => queryClient.setQueryData(['webhook-settings'], answer),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['webhook-settings'] }),
  });
}
