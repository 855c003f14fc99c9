import type { Reminder, RequestedToolCall } from '../events/events';
import type { QueuedTurn } from '../session/session-state';
import { modelCallId, type ToolProgress, type TurnProgress } from './turn-progress';

/** The one next thing a turn needs, derived only from what the log already holds. */
export type NextStep =
  | { kind: 'idle'; why: 'finished' | 'not-started' | 'unknown-turn' }
  | { kind: 'start-message' }
  | { kind: 'call-model'; step: number; callId: string; started: boolean; recordedText: string; recordedThought: string }
  | { kind: 'start-tool'; tool: RequestedToolCall }
  | { kind: 'await-approval'; approvalId: string }
  /** `edited`: `tool.input` is the approver's edit, not the model's (check it again before running). */
  | { kind: 'run-tool'; tool: RequestedToolCall; edited?: boolean }
  | { kind: 'refuse-tool'; tool: RequestedToolCall; reason: string }
  | { kind: 'deliver-input'; step: number; steers: QueuedTurn[]; reminders: Reminder[] }
  | { kind: 'complete'; stopReason: 'end_turn' | 'max_steps'; text: string };

/**
 * Live input waiting at the session level (see `pendingSteers` / `pendingReminders`): delivered
 * at the turn's next step boundary, before a model call that has not started yet.
 */
export interface LiveInput {
  steers: readonly QueuedTurn[];
  /** Reminders to render (audit_only ones are drained at turn end instead). */
  reminders: readonly Reminder[];
}

function toolStep(t: ToolProgress): NextStep | null {
  if (t.completed) return null;
  if (!t.started) return { kind: 'start-tool', tool: t.call };
  if (t.started.policy === 'deny') return { kind: 'refuse-tool', tool: t.call, reason: 'denied by policy' };
  if (t.started.policy === 'allow') return { kind: 'run-tool', tool: t.call };
  if (!t.approval || t.approval.status === 'pending') return { kind: 'await-approval', approvalId: t.approval?.approvalId ?? '' };
  if (t.approval.status === 'denied') return { kind: 'refuse-tool', tool: t.call, reason: t.approval.reason ?? 'denied by the user' };
  if (t.approval.input !== undefined) return { kind: 'run-tool', tool: { ...t.call, input: t.approval.input }, edited: true };
  return { kind: 'run-tool', tool: t.call };
}

/** Joined answer text of every model call of the turn, in order. */
export function turnText(p: TurnProgress): string {
  return p.calls.map((c) => c.completed?.text ?? c.text).join('');
}

export function planNextStep(p: TurnProgress, opts: { maxSteps: number; live?: LiveInput }): NextStep {
  if (p.status === 'unknown') return { kind: 'idle', why: 'unknown-turn' };
  if (p.status === 'queued') return { kind: 'idle', why: 'not-started' };
  if (p.status !== 'running') return { kind: 'idle', why: 'finished' };
  if (!p.messageStarted) return { kind: 'start-message' };
  const last = p.calls[p.calls.length - 1];
  if (last && !last.completed) {
    return { kind: 'call-model', step: last.step, callId: last.callId, started: true, recordedText: last.text, recordedThought: last.thought };
  }
  for (const t of p.tools) {
    const s = toolStep(t);
    if (s) return s;
  }
  if (last?.completed && last.completed.toolCalls.length === 0) {
    return { kind: 'complete', stopReason: 'end_turn', text: turnText(p) };
  }
  const step = p.calls.length;
  if (step >= opts.maxSteps) return { kind: 'complete', stopReason: 'max_steps', text: turnText(p) };
  const live = opts.live;
  if (live && (live.steers.length > 0 || live.reminders.length > 0)) {
    return { kind: 'deliver-input', step, steers: [...live.steers], reminders: [...live.reminders] };
  }
  return { kind: 'call-model', step, callId: modelCallId(p.turnId, step), started: false, recordedText: '', recordedThought: '' };
}
