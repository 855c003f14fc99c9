import { buildModelMessages } from '@hub/agent';
import { evolveSessionView, initialSessionView, openRequestOf, type HubEvent, type Recorded, type SessionView } from '@hub/domain';
import type { LlmInputMessage, LlmRequestMessages } from '@hub/protocol-openenv';

/**
 * What each model call of a session was sent, for RFC 005 `llm_request.messages`, rebuilt from
 * the log the way the worker built it: `buildModelMessages` over the session view folded up to
 * the call (the same fold and the same function, deterministic). So the log keeps one copy of a
 * conversation, not one per model call, and the messages hold only what the log holds: secret
 * values never enter it (tenant secrets are `hub-secret:` references, secret
 * `environment_state` is withheld before it is recorded), so none can reach a client here.
 *
 * Calls asked for in log order (a trajectory, a live stream) cost one pass over the log in all:
 * the view only moves forward, and starts again only for a call before it.
 *
 * A wrapped harness's own model requests never pass through the hub: its `llm_request` carries
 * what the hub handed the harness, the turn's message.
 */
export class ModelRequests {
  private readonly events: Recorded<HubEvent>[] = [];
  private view: SessionView = initialSessionView();
  /** How many of `events` the view has folded. */
  private folded = 0;

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
    if (sorted) return;
    this.events.sort((a, b) => a.streamPosition - b.streamPosition);
    this.restart();
  }

  readonly messagesOf: LlmRequestMessages = (callId) => {
    const at = this.indexOf(callId);
    const started = this.events[at];
    if (started?.type !== 'ModelCallStarted') return undefined;
    if (at < this.folded) this.restart();
    while (this.folded < at) evolveSessionView(this.view, this.events[this.folded++]);
    const { provider, turnId } = started.data;
    if (provider === 'harness' || provider.startsWith('harness:')) return harnessInput(this.view, turnId);
    return buildModelMessages(this.view);
  };

  /** The call's `ModelCallStarted`, looked for from the view's position first (the usual next call). */
  private indexOf(callId: string): number {
    const is = (e: Recorded<HubEvent>) => e.type === 'ModelCallStarted' && e.data.callId === callId;
    for (let i = this.folded; i < this.events.length; i++) if (is(this.events[i])) return i;
    return this.events.findIndex(is);
  }

  private restart(): void {
    this.view = initialSessionView();
    this.folded = 0;
  }
}

function harnessInput(view: SessionView, turnId: string): LlmInputMessage[] {
  const request = openRequestOf(view, turnId);
  return request ? [{ role: 'user', content: request.prompt }] : [];
}
