import { buildModelMessages } from '@hub/agent';
import type { HubEvent, Recorded } from '@hub/domain';
import type { LlmInputMessage, LlmRequestMessages } from '@hub/protocol-openenv';

/**
 * What each model call of a session was sent, for RFC 005 `llm_request.messages`, rebuilt from
 * the log the way the worker built it (`buildModelMessages` over the events before the call: the
 * same function over the same prefix, deterministic). So the log keeps one copy of a
 * conversation, not one per model call, and the messages hold only what the log holds: secret
 * values never enter it (tenant secrets are `hub-secret:` references, secret
 * `environment_state` is withheld before it is recorded), so none can reach a client here.
 *
 * A wrapped harness's own model requests never pass through the hub: its `llm_request` carries
 * what the hub handed the harness, the turn's message.
 */
export class ModelRequests {
  private readonly events: Recorded<HubEvent>[] = [];

  constructor(events: readonly Recorded<HubEvent>[] = []) {
    this.add(events);
  }

  /** Events of the session, as they arrive (a live stream keeps adding); kept in log order. */
  add(batch: readonly Recorded<HubEvent>[]): void {
    let sorted = true;
    for (const e of batch) {
      sorted &&= this.events.length === 0 || (this.events.at(-1) as Recorded<HubEvent>).streamPosition < e.streamPosition;
      this.events.push(e);
    }
    if (!sorted) this.events.sort((a, b) => a.streamPosition - b.streamPosition);
  }

  readonly messagesOf: LlmRequestMessages = (callId) => {
    const at = this.events.findIndex((e) => e.type === 'ModelCallStarted' && e.data.callId === callId);
    const started = this.events[at];
    if (started?.type !== 'ModelCallStarted') return undefined;
    const before = this.events.slice(0, at);
    const { provider, turnId } = started.data;
    if (provider === 'harness' || provider.startsWith('harness:')) return harnessInput(before, turnId);
    return buildModelMessages(before);
  };
}

function harnessInput(events: readonly Recorded<HubEvent>[], turnId: string): LlmInputMessage[] {
  const requested = events.find((e) => e.type === 'TurnRequested' && e.data.turnId === turnId);
  return requested?.type === 'TurnRequested' ? [{ role: 'user', content: requested.data.prompt }] : [];
}
