import type { HarnessEvent, WsErrorCode } from './schema';

/** `{observation, reward, done}`: reward and done sit beside the observation, as upstream answers. */
export interface StepResult {
  observation: Record<string, unknown>;
  reward: number | null;
  done: boolean;
}

/** What one step produced, in the hub's terms. */
export interface TurnSummary {
  status: 'completed' | 'failed' | 'cancelled' | 'awaiting_approval' | 'pending';
  response: string;
  turnEvents: HarnessEvent[];
  turnNumber: number;
  reward: number | null;
  done: boolean;
  episodeId: string;
  error?: { code: string; message: string };
}

/** The observation of a harness step (RFC 005: `response`, `turn_events`, `turn_number`). */
export function encodeStepResult(t: TurnSummary): StepResult {
  const observation: Record<string, unknown> = {
    response: t.response,
    turn_events: t.turnEvents,
    turn_number: t.turnNumber,
    status: t.status,
    episode_id: t.episodeId,
  };
  if (t.error) observation['error'] = t.error;
  return { observation, reward: t.reward, done: t.done };
}

/** `reset`'s answer: a fresh conversation, nothing said yet. */
export function encodeResetResult(episodeId: string): StepResult {
  return { observation: { status: 'ready', response: '', turn_events: [], turn_number: 0, episode_id: episodeId }, reward: null, done: false };
}

export interface EpisodeState {
  episode_id: string | null;
  step_count: number;
  [key: string]: unknown;
}

export const wsObservation = (r: StepResult) => ({ type: 'observation' as const, data: r });
export const wsState = (s: EpisodeState) => ({ type: 'state' as const, data: s });
export const wsError = (code: WsErrorCode, message: string, extra: Record<string, unknown> = {}) => ({
  type: 'error' as const,
  data: { message, code, ...extra },
});

/** FastAPI's error body for non-validation HTTP errors. */
export const httpDetail = (detail: string) => ({ detail });

/** `GET /schema` of a harness environment. */
export function environmentSchema(): { action: object; observation: object; state: object } {
  return {
    action: { type: 'object', title: 'HarnessAction', properties: { message: { type: 'string', minLength: 1 } }, required: ['message'] },
    observation: {
      type: 'object',
      title: 'HarnessObservation',
      properties: {
        response: { type: 'string' },
        turn_events: { type: 'array', items: { type: 'object' } },
        turn_number: { type: 'integer' },
      },
    },
    state: { type: 'object', title: 'State', properties: { episode_id: { type: ['string', 'null'] }, step_count: { type: 'integer' } } },
  };
}
