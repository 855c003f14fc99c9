import { z } from 'zod';
import { defineEvent } from './define-event';

// A started turn that no worker has taken yet (ADR 0033). Declared here, not in events.ts, so
// the work stays additive; `HubEvent` lists it. It is a fact about waiting, not about the turn's
// work: the turn's deciders and its runner ignore it, and only the views that show progress
// (the transport state, ACP `progress`, the turns read model) fold it.

/** Why a turn waits: every worker slot is taken, the workers' admission gate is closed, or no worker runs. */
export const TurnQueueReason = z.enum(['capacity']);
export type TurnQueueReason = z.infer<typeof TurnQueueReason>;

/**
 * Turn `turnId` was scheduled at `since` (ISO time) and its job still waited for a worker when
 * ingress looked. Appended at most once per scheduling, only when the turn had no event from a
 * worker yet; the turn's next event of any other type (its first from a worker, or its end)
 * ends the queued phase: see {@link endsQueuedPhase}.
 */
export const TurnQueued = defineEvent('TurnQueued', {
  turnId: z.string(),
  reason: TurnQueueReason,
  since: z.string(),
});
export type TurnQueued = z.infer<typeof TurnQueued>;

/**
 * Whether an event of the queued turn ends its queued phase: every one but another `TurnQueued`.
 * Whatever follows a `TurnQueued` on its turn came from a worker that took the turn (a message,
 * a model call, live input it drained) or ended the turn (a cancel): either way it no longer waits.
 */
export function endsQueuedPhase(event: { type: string }): boolean {
  return event.type !== 'TurnQueued';
}
