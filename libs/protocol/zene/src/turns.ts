import { SESSION_ID_PATTERN, foldTurn, publicFailureMessage, type HubEvent, type Recorded, type TurnContext } from '@hub/domain';
import { zeneCodeOf } from './errors';
import { usageOf, type ZeneResult } from './encode';
import type { RunRequest } from './schema';

/**
 * How long a finished result is served again for a repeated idempotency key (upstream keeps
 * its replay cache 600 s). After that, the same key starts a new turn: clawbridge derives its
 * keys from session + channel + prompt, so "hello" tomorrow must not get yesterday's answer.
 */
export const REPLAY_WINDOW_MS = 600_000;

const HASHED_SESSION_PREFIX = 'zene-h.';

/**
 * The hub session of a zene `session_id`: the id itself when it fits the hub's alphabet
 * (`qq_user_42`, `qq:private:u1`), so the same session can be watched over any protocol;
 * otherwise `zene-h.<64-bit FNV-1a hex>` of it (spaces, other scripts, over 128 characters).
 */
export function hubSessionIdOf(zeneSessionId: string): string {
  if (SESSION_ID_PATTERN.test(zeneSessionId)) return zeneSessionId;
  return `${HASHED_SESSION_PREFIX}${fnv1a(zeneSessionId, 0x811c9dc5)}${fnv1a(zeneSessionId, 0x01000193)}`;
}

function fnv1a(s: string, seed: number): string {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** What a run is deduplicated by: its idempotency key, else its request id. */
export function turnKeyOf(run: Pick<RunRequest, 'request_id' | 'idempotency_key'>): string {
  return run.idempotency_key ? `k:${run.idempotency_key}` : `r:${run.request_id}`;
}

/** The turn id of the `generation`-th turn for one key in a session (deterministic, so concurrent repeats collide). */
export function turnIdOf(key: string, generation: number): string {
  return generation <= 1 ? `zene:${key}` : `zene:${key}#${generation}`;
}

/** What a zene run keeps on its turn (`TurnRequested.context.zene`). */
export interface ZeneTurnContext {
  request_id: string;
  idempotency_key?: string;
  channel_id?: string;
  agent?: string;
  metadata?: unknown;
}

/** The turn context of a run: `channel_id` and `agent` travel with the turn, with the ids. */
export function turnContextOf(run: RunRequest): TurnContext {
  const zene: ZeneTurnContext = { request_id: run.request_id };
  if (run.idempotency_key) zene.idempotency_key = run.idempotency_key;
  if (run.channel_id) zene.channel_id = run.channel_id;
  if (run.agent) zene.agent = run.agent;
  if (run.metadata !== undefined) zene.metadata = run.metadata;
  return { zene };
}

/** `start` a new turn, or `join` the one an earlier request with the same key started. */
export type RunPlan =
  | { kind: 'start'; turnId: string }
  | { kind: 'join'; turnId: string; firstRequestId: string; ended: boolean }
  /** The key's turn was requested with another prompt: refused, never joined silently. */
  | { kind: 'conflict'; turnId: string; firstRequestId: string };

/**
 * Decides from the session's log what a run with `key` does. An earlier turn for the key is
 * joined while it runs, and replayed if it ended within the window with a result worth
 * repeating (completed, or failed for good). One that timed out, was cancelled or failed
 * retryably is not replayed: the repeat is a retry and gets the next generation's turn.
 */
export function planRun(events: readonly Recorded<HubEvent>[], key: string, nowMs: number, windowMs = REPLAY_WINDOW_MS, prompt?: string): RunPlan {
  const requested = new Map<string, Recorded<HubEvent>>();
  const ends = new Map<string, Recorded<HubEvent>>();
  for (const e of events) {
    if (e.type === 'TurnRequested') requested.set(e.data.turnId, e);
    if (e.type === 'TurnCompleted' || e.type === 'TurnFailed' || e.type === 'TurnCancelled') ends.set(e.data.turnId, e);
  }
  for (let generation = 1; ; generation++) {
    const turnId = turnIdOf(key, generation);
    const request = requested.get(turnId);
    if (!request) return { kind: 'start', turnId };
    const firstRequestId = requestIdOf(request) ?? turnId;
    const end = ends.get(turnId);
    const otherPrompt = prompt !== undefined && request.type === 'TurnRequested' && request.data.prompt !== prompt;
    if (!end) return otherPrompt ? { kind: 'conflict', turnId, firstRequestId } : { kind: 'join', turnId, firstRequestId, ended: false };
    const fresh = nowMs - Date.parse(end.createdAt) <= windowMs;
    const final = end.type === 'TurnCompleted' || (end.type === 'TurnFailed' && !end.data.retryable);
    if (fresh && final) return otherPrompt ? { kind: 'conflict', turnId, firstRequestId } : { kind: 'join', turnId, firstRequestId, ended: true };
  }
}

/** The zene request id that started a turn, if a zene run did. */
export function requestIdOf(event: HubEvent): string | null {
  if (event.type !== 'TurnRequested') return null;
  const zene = event.data.context['zene'];
  const id = typeof zene === 'object' && zene !== null ? (zene as { request_id?: unknown }).request_id : undefined;
  return typeof id === 'string' ? id : null;
}

/** The turn a zene request started (for `cancel`'s `target_request_id`), the latest if several. */
export function turnOfRequest(events: readonly HubEvent[], requestId: string): { turnId: string; ended: boolean } | null {
  const started = events.filter((e) => requestIdOf(e) === requestId);
  const last = started[started.length - 1];
  if (!last || last.type !== 'TurnRequested') return null;
  const status = foldTurn(events, last.data.turnId).status;
  return { turnId: last.data.turnId, ended: status === 'completed' || status === 'failed' || status === 'cancelled' };
}

/**
 * How a turn ended, from the log, or null while it is queued or running. Text and usage are
 * the hub's own: `TurnCompleted.text` / `usage`, or the usage of the model calls made so far.
 */
export function resultOfTurn(events: readonly HubEvent[], turnId: string): ZeneResult | null {
  const end = [...events].reverse().find((e) => isEndOf(e, turnId));
  if (!end) return null;
  const usage = usageOf(foldTurn(events, turnId).usage);
  switch (end.type) {
    case 'TurnCompleted':
      return { kind: 'ok', text: end.data.text, usage: usageOf(end.data.usage) };
    case 'TurnFailed':
      return {
        kind: 'failed',
        code: zeneCodeOf(end.data.code),
        message: publicFailureMessage(end.data.code, end.data.message),
        retryable: end.data.retryable,
        usage,
      };
    case 'TurnCancelled':
      return end.data.reason === 'timeout' ? { kind: 'timeout', usage } : { kind: 'canceled', reason: end.data.reason, usage };
    default:
      return null;
  }
}

/** Tokens a turn has used so far (for a reply that cannot wait for its end). */
export function usageSoFar(events: readonly HubEvent[], turnId: string) {
  return usageOf(foldTurn(events, turnId).usage);
}

function isEndOf(e: HubEvent, turnId: string): boolean {
  return (e.type === 'TurnCompleted' || e.type === 'TurnFailed' || e.type === 'TurnCancelled') && e.data.turnId === turnId;
}
