import type { Provider } from '@nestjs/common';
import { WebhookDeliveries, WebhookEndpoints } from '@hub/webhooks';
import type { Pool } from 'pg';
import { PG_POOL } from '../hub.providers';
import { ApprovalLinksController } from './approval-links.controller';
import { WebhookSettingsController, WebhooksController } from './webhooks.controller';

/** The webhook endpoints' and delivery log's stores, on the process's pool. */
export const webhookProviders: Provider[] = [
  { provide: WebhookEndpoints, inject: [PG_POOL], useFactory: (pool: Pool) => new WebhookEndpoints(pool) },
  { provide: WebhookDeliveries, inject: [PG_POOL], useFactory: (pool: Pool) => new WebhookDeliveries(pool) },
];

/** Webhook administration and approval links (issue 28). */
export const webhookControllers = [WebhooksController, WebhookSettingsController, ApprovalLinksController];
