import { z } from 'zod';
import { RiskTier, TurnQueueReason } from '../events/events';

// The harness transport's wire state (specs/harness-transport-protocol.md, "State"), declared
// once here because it is the hub's reference projection. Everything beyond the spec is an
// optional field, so a client written against the spec alone still renders it.

/** Any JSON value: what a `set` operation may carry. */
export const JSONValue = z.json();
export type JSONValue = z.infer<typeof JSONValue>;

/** Addition: the human decision a risky tool call waits for. */
export const HarnessApproval = z.object({
  id: z.string(),
  status: z.enum(['pending', 'approved', 'denied']),
  riskTier: RiskTier,
  reason: z.string(),
});
export type HarnessApproval = z.infer<typeof HarnessApproval>;

export const HarnessToolCall = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['running', 'complete', 'error']),
  approval: HarnessApproval.optional(),
});
export type HarnessToolCall = z.infer<typeof HarnessToolCall>;

export const HarnessMessage = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  status: z.enum(['pending', 'streaming', 'complete', 'error']),
  toolCalls: z.array(HarnessToolCall).optional(),
  /** Addition: the turn the message belongs to. */
  turnId: z.string().optional(),
  /** Addition: why an assistant message stopped early. */
  stopReason: z.enum(['cancelled', 'failed']).optional(),
});
export type HarnessMessage = z.infer<typeof HarnessMessage>;

/**
 * Addition (ADR 0033): the running turn waits for a worker to take it (`since`: when it was
 * scheduled). The turn's first event from a worker, or its end, sets it to `null`.
 */
export const HarnessQueued = z.object({
  turnId: z.string(),
  reason: TurnQueueReason,
  since: z.string(),
});
export type HarnessQueued = z.infer<typeof HarnessQueued>;

/**
 * `error` is the failed turn's message while `status` is `error`; as in the spec, an optional
 * string, never null. The next turn's start replaces the whole state with one without it (ops
 * cannot delete a key; see `turnStarted`), so a watcher never shows a stale error; a snapshot
 * folds the same ops and agrees. Absent in a session that never failed.
 */
export const HarnessState = z.object({
  status: z.enum(['idle', 'running', 'error']),
  messages: z.array(HarnessMessage),
  error: z.string().optional(),
  /** `running` but not taken by a worker yet; null once it is (or ends). Absent in a session whose turns never waited. */
  queued: HarnessQueued.nullable().optional(),
});
export type HarnessState = z.infer<typeof HarnessState>;

/** A patch to the state, as in assistant-stream's object stream. Indices are decimal strings. */
export const DeltaOperation = z.discriminatedUnion('type', [
  z.object({ type: z.literal('set'), path: z.array(z.string()), value: JSONValue }),
  z.object({ type: z.literal('append-text'), path: z.array(z.string()), value: z.string() }),
]);
export type DeltaOperation = z.infer<typeof DeltaOperation>;

/** The state of a session with no turns yet, as sent in the first snapshot. */
export function initialHarnessState(): HarnessState {
  return { status: 'idle', messages: [] };
}
