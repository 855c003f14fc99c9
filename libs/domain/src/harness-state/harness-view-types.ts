import type { DeltaOperation, HarnessState } from './harness-state';

/** A prompt that was requested but whose turn has not started: not visible yet. */
export interface RequestedPrompt {
  readonly userMessageId: string;
  readonly prompt: string;
}

/**
 * The harness projection: the wire `state` plus the bookkeeping needed to turn the next event
 * into ops. Plain JSON (records, not Maps), so a view can be cached, compared and replayed.
 */
export interface HarnessView {
  readonly state: HarnessState;
  /** The turn whose end sets the overall status; null between turns. */
  readonly activeTurnId: string | null;
  /** turnId → its prompt, from TurnRequested until TurnStarted (or the turn ends unstarted). */
  readonly requested: Readonly<Record<string, RequestedPrompt>>;
  /** messageId → index in `state.messages`. */
  readonly messageIndex: Readonly<Record<string, number>>;
  /** toolCallId → [message index, index in that message's `toolCalls`]. */
  readonly toolCallIndex: Readonly<Record<string, readonly [number, number]>>;
  /** turnId → index of its latest assistant message, until the turn ends. */
  readonly turnMessage: Readonly<Record<string, number>>;
}

/** What one event does to the projection: the ops, and the bookkeeping it changes. */
export interface HarnessStep {
  readonly ops: DeltaOperation[];
  readonly book?: Partial<Omit<HarnessView, 'state'>>;
}
