import { z } from 'zod';
import { defineEvent } from './define-event';

// Webhook administration facts (issue 28), on the tenant's admin stream like the other
// administration events: who made, changed, rotated or removed an endpoint. Never a secret.

/** A webhook endpoint was made. */
export const WebhookEndpointCreated = defineEvent('WebhookEndpointCreated', { endpointId: z.string(), url: z.string(), events: z.array(z.string()) });
export type WebhookEndpointCreated = z.infer<typeof WebhookEndpointCreated>;

/** A webhook endpoint's url, events, description or enabled changed: what the change named. */
export const WebhookEndpointUpdated = defineEvent('WebhookEndpointUpdated', {
  endpointId: z.string(),
  changes: z.object({
    url: z.string().optional(),
    events: z.array(z.string()).optional(),
    description: z.string().nullable().optional(),
    enabled: z.boolean().optional(),
  }),
});
export type WebhookEndpointUpdated = z.infer<typeof WebhookEndpointUpdated>;

export const WebhookEndpointDeleted = defineEvent('WebhookEndpointDeleted', { endpointId: z.string() });
export type WebhookEndpointDeleted = z.infer<typeof WebhookEndpointDeleted>;

/** A webhook endpoint's secret was rotated; the previous one signs until `previousSecretExpiresAt`. */
export const WebhookSecretRotated = defineEvent('WebhookSecretRotated', { endpointId: z.string(), previousSecretExpiresAt: z.string() });
export type WebhookSecretRotated = z.infer<typeof WebhookSecretRotated>;

/** The tenant's approval links were turned on or off. */
export const ApprovalLinksSet = defineEvent('ApprovalLinksSet', { enabled: z.boolean() });
export type ApprovalLinksSet = z.infer<typeof ApprovalLinksSet>;

/** Every webhook administration event (members of `AdminEvent`). */
export const WEBHOOK_ADMIN_EVENTS = [WebhookEndpointCreated, WebhookEndpointUpdated, WebhookEndpointDeleted, WebhookSecretRotated, ApprovalLinksSet] as const;
