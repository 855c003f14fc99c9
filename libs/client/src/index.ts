// @harness-hub/client: a typed client of Harness Hub for Node 20+ and browsers (docs/client-library.md).
export { HubClient, type HubClientOptions } from './client';
export { HubHttp, type HubLocation, type HttpOptions, type RequestOptions } from './http';
export { HubError, HubUnreachableError, retryAfterMs } from './errors';
export { DEFAULT_RETRY, retryDelay, isIdempotent, type RetryPolicy } from './retry';
export { SessionStream, type Link, type StreamEvent, type StreamOptions } from './session-stream';
export { foldFrame, turnOutcome, type BusyPolicy, type DeltaOperation, type SessionView, type TransportCommand, type TransportFrame } from './frames';
export { EventFeed, type FeedEvent, type FeedLink, type FeedOptions } from './event-feed';
export { Sessions, type SessionErasure, type SessionFeedData, type SubmitOptions } from './sessions';
export { Approvals } from './approvals';
export { Admin, type Role, type TenantLimits } from './admin';
export { Webhooks, type EndpointInput } from './webhooks';
export { Schedules } from './schedules';
export type { SocketConstructor, SocketLike, UpgradeRefusal } from './web-socket';
export type * from './api-types';
// Receivers verify a delivery's signature with the Standard Webhooks library the hub signs for.
export { Webhook, WebhookVerificationError } from 'standardwebhooks';
