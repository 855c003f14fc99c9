import { applyOps } from '@hub/domain';
import type { HarnessState } from './api-types';

// The Harness transport's wire messages (specs/harness-transport-protocol.md; the WebSocket is
// not in the OpenAPI document) and the one rule for folding them into a session's state.

/** `set` replaces the value at `path`; `append-text` appends to the string there. */
export type DeltaOperation = { type: 'set'; path: string[]; value: unknown } | { type: 'append-text'; path: string[]; value: string };

export type TransportFrame =
  | { type: 'state'; state: HarnessState; cursor: number }
  | { type: 'delta'; operations: DeltaOperation[]; cursor: number }
  | { type: 'error'; message: string; code?: string; cursor?: number; retryAfterMs?: number };

/** Commands a client sends over the socket. */
export type TransportCommand =
  | { type: 'submit'; prompt: string; id?: string; busyPolicy?: BusyPolicy }
  | { type: 'cancel' }
  | { type: 'approve' | 'deny'; approvalId: string; reason?: string };

/** What a submit does when a turn already runs: queue behind it (default), be refused (`session_busy`), or cancel it. */
export type BusyPolicy = 'enqueue' | 'reject' | 'interrupt';

/** A session as a client holds it: the state folded so far and the cursor it is current at (null: none yet). */
export interface SessionView {
  state: HarnessState | null;
  cursor: number | null;
}

/**
 * Folds one frame into `view`: a `state` replaces it, a `delta` applies its operations in order
 * (the same `applyOps` the hub's projection uses), unless its cursor is not past the view's:
 * then it is a frame already applied (sent again across a reconnect) and is dropped
 * (`duplicate`). An `error` changes nothing.
 */
export function foldFrame(view: SessionView, frame: TransportFrame): SessionView & { duplicate: boolean } {
  if (frame.type === 'error') return { ...view, duplicate: false };
  if (frame.type === 'state') return { state: frame.state, cursor: frame.cursor, duplicate: false };
  if (view.cursor !== null && frame.cursor <= view.cursor) return { ...view, duplicate: true };
  const base = view.state ?? ({ status: 'idle', messages: [] } as HarnessState);
  // The wire type is structurally the domain's; the hub's projection produced these operations.
  const state = applyOps(base as Parameters<typeof applyOps>[0], frame.operations as Parameters<typeof applyOps>[1]) as HarnessState;
  return { state, cursor: frame.cursor, duplicate: false };
}

/**
 * Whether turn `turnId` is over, and how: the session stopped running with it the last turn, or a
 * later turn already started after it. Undefined while it runs or before it shows.
 */
export function turnOutcome(state: HarnessState, turnId: string): 'ok' | 'failed' | undefined {
  const mine = state.messages.filter((m) => m.turnId === turnId);
  if (mine.length === 0) return undefined;
  const answer = mine.filter((m) => m.role === 'assistant').pop();
  const last = state.messages[state.messages.length - 1];
  const ours = last?.turnId === turnId;
  if (ours && state.status === 'running') return undefined;
  if (answer?.stopReason === 'failed' || (ours && state.status === 'error')) return 'failed';
  return 'ok';
}
