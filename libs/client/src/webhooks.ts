import type { JsonObject } from './api-types';
import type { HubHttp } from './http';

const at = (id: string) => `/v1/webhooks/${encodeURIComponent(id)}`;

export interface EndpointInput {
  url?: string;
  events?: string[];
  description?: string;
  enabled?: boolean;
}

/** Webhook endpoints of the tenant and their delivery log. Receivers verify with `Webhook` (standardwebhooks, re-exported). */
export class Webhooks {
  constructor(private readonly http: HubHttp) {}

  list(): Promise<{ endpoints: JsonObject[] }> {
    return this.http.json('GET', '/v1/webhooks');
  }

  /** A new endpoint; its `whsec_` secret is in the answer, shown once. */
  create(body: EndpointInput & { url: string; events: string[] }): Promise<JsonObject> {
    return this.http.json('POST', '/v1/webhooks', { body });
  }

  get(id: string): Promise<JsonObject> {
    return this.http.json('GET', at(id));
  }

  update(id: string, body: EndpointInput): Promise<JsonObject> {
    return this.http.json('PATCH', at(id), { body });
  }

  delete(id: string): Promise<JsonObject> {
    return this.http.json('DELETE', at(id));
  }

  rotate(id: string, o: { overlapSeconds?: number } = {}): Promise<JsonObject> {
    return this.http.json('POST', `${at(id)}/rotate`, { body: o });
  }

  test(id: string): Promise<JsonObject> {
    return this.http.json('POST', `${at(id)}/test`);
  }

  attempts(id: string, o: { limit?: number } = {}): Promise<{ attempts: JsonObject[] }> {
    return this.http.json('GET', `${at(id)}/attempts`, { query: o });
  }

  messages(id: string, o: { limit?: number } = {}): Promise<{ messages: JsonObject[] }> {
    return this.http.json('GET', `${at(id)}/messages`, { query: o });
  }

  redeliver(id: string, body: { messageId: string } | { since: string }): Promise<JsonObject> {
    return this.http.json('POST', `${at(id)}/redeliver`, { body });
  }

  settings(): Promise<JsonObject> {
    return this.http.json('GET', '/v1/webhook-settings');
  }

  setSettings(body: { approvalLinks: boolean }): Promise<JsonObject> {
    return this.http.json('PUT', '/v1/webhook-settings', { body });
  }
}
