import type { Approval, ApprovalAnswer, Ok, QueryOf } from './api-types';
import { EventFeed, type FeedOptions } from './event-feed';
import type { HubHttp } from './http';

/** The approval inbox: every approval of the tenant, a live feed of changes, and answers. */
export class Approvals {
  constructor(private readonly http: HubHttp) {}

  list(query: QueryOf<'/v1/approvals', 'get'> = {}): Promise<Ok<'/v1/approvals', 'get'>> {
    return this.http.json('GET', '/v1/approvals', { query: query as Record<string, string> });
  }

  /**
   * The live feed: `approval` events (each approval's current state, `id` its position), first every
   * pending one and `ready`, then each change; resumes after the last id across drops.
   */
  feed(o: FeedOptions = {}): EventFeed<Approval> {
    return new EventFeed<Approval>(this.http, '/v1/approvals/stream', o);
  }

  /** Approve or deny; the first answer wins (a later one: HubError `APPROVAL_ALREADY_RESOLVED`). */
  answer(sessionId: string, approvalId: string, decision: 'approved' | 'denied', reason?: string): Promise<ApprovalAnswer> {
    return this.http.json('POST', `/v1/sessions/${encodeURIComponent(sessionId)}/approvals/${encodeURIComponent(approvalId)}`, {
      body: { decision, ...(reason ? { reason } : {}) },
    });
  }
}
