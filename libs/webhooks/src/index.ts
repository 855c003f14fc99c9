export { AddressGuard, isAddressRefused, type AddressVerdict } from './address-guard';
export { WebhookDeliveries, type AttemptView, type MessageView } from './deliveries';
export { WebhookDispatcher, type DispatcherOptions } from './dispatcher';
export { WebhookEndpoints, type EndpointPatch, type EndpointView } from './endpoints';
export {
  OUTBOX_READS,
  TEST_EVENT_TYPE,
  WEBHOOK_EVENT_TYPES,
  WILDCARD,
  subscribes,
  webhookEventsOf,
  type ExpiryOutcome,
  type LogEvent,
  type WebhookEvent,
  type WebhookEventType,
} from './event-types';
export { LinkClaims, claimsOf, newLinkKey, signLink, verifyLink, type LinkRefusal } from './links';
export { OUTBOX_CHECKPOINT, WebhookOutbox, newMessageId, type OutboxMessage, type OutboxOptions } from './outbox';
export { DEFAULT_SCHEDULE, nextDelay, parseSchedule, retryAfterMs } from './schedule';
export { deliverWithRetries, type RetriedDelivery } from './retry';
export { postGuarded, sendSigned, type AttemptOutcome, type AttemptResult, type GuardedPost, type SignedDelivery } from './send';
export { liveSecrets, newSecret, signedHeaders, type SignedHeaders, type SigningSecret } from './signing';
export { WebhookService, type WebhookServiceOptions } from './service';
