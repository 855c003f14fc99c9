import { A2A_PUSH_CONTENT_TYPE } from '@hub/protocol-a2a';
import { postGuarded, type AddressGuard, type AttemptResult } from '@hub/webhooks';

/** One notification POST to make. */
export interface PushPost {
  url: string;
  /** The `webhook-id`: the same on every attempt, for the receiver to dedupe by. */
  id: string;
  body: string;
  /** The config's own headers (its token, or its `Authorization`). */
  headers: Record<string, string>;
  timeoutMs: number;
  guard: AddressGuard;
}

/**
 * One attempt, the webhook lib's own (`postGuarded`: the SSRF guard, a new connection, no
 * redirect, a 2xx within the timeout, 410 gone), with the config's headers (the A2A token) and no
 * signature (a push config has no secret of ours: its token authenticates us). Never throws.
 */
export function postNotification(d: PushPost): Promise<AttemptResult> {
  const headers = { ...d.headers, 'content-type': A2A_PUSH_CONTENT_TYPE, 'user-agent': 'harness-hub-a2a-push', 'webhook-id': d.id };
  return postGuarded({ url: d.url, headers, body: d.body, timeoutMs: d.timeoutMs, guard: d.guard });
}
