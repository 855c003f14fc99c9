import { z } from 'zod';
import type { EventMetadata, HubEvent, RewardComputed } from '@hub/domain';
import { buildRubric, type RubricInput } from './rubrics';

// Scoring an ended turn from the log (RFC 005 "Reward boundary"): the rubric runs after the turn
// has ended, over what the log holds, never inside the agent loop, so the harness can neither
// see nor influence it. The turn's rubric travels in its request context (`openenv.rubric`, put
// there by the OpenEnv edge), so the reward is the one that applied when the turn was asked for.

/** A rubric's kind and parameters, as an environment configures it. */
export const RubricSpec = z.object({ kind: z.string().min(1) }).catchall(z.unknown());
export type RubricSpec = z.infer<typeof RubricSpec>;

const OpenEnvContext = z.object({ rubric: RubricSpec.nullable().optional() }).loose();

const isEnd = (e: HubEvent, turnId: string) =>
  (e.type === 'TurnCompleted' || e.type === 'TurnFailed' || e.type === 'TurnCancelled') && e.data.turnId === turnId;

/** The rubric the turn was asked with (`context.openenv.rubric`), or null. */
export function rubricOfTurn(events: readonly HubEvent[], turnId: string): RubricSpec | null {
  const requested = events.find((e) => e.type === 'TurnRequested' && e.data.turnId === turnId);
  if (requested?.type !== 'TurnRequested') return null;
  const parsed = OpenEnvContext.safeParse(requested.data.context['openenv']);
  return parsed.success ? (parsed.data.rubric ?? null) : null;
}

/** What a rubric sees of an ended turn, read from the log; null while the turn has not ended. */
export function rubricInputOf(events: readonly HubEvent[], turnId: string): RubricInput | null {
  const endAt = events.findIndex((e) => isEnd(e, turnId));
  if (endAt < 0) return null;
  const end = events[endAt];
  const requested = events.find((e) => e.type === 'TurnRequested' && e.data.turnId === turnId);
  const calls = (only?: string) =>
    events.slice(0, endAt + 1).flatMap((e) => (e.type === 'ToolCallStarted' && (only === undefined || e.data.turnId === only) ? [e.data.name] : []));
  return {
    message: requested?.type === 'TurnRequested' ? requested.data.prompt : '',
    response: end.type === 'TurnCompleted' ? end.data.text : '',
    toolCalls: calls(turnId),
    episodeToolCalls: calls(),
    status: end.type === 'TurnCompleted' ? 'completed' : end.type === 'TurnFailed' ? 'failed' : 'cancelled',
  };
}

/** The `RewardComputed` of an ended turn under `rubric`, or null while the turn has not ended. */
export function rewardFor(events: readonly HubEvent[], turnId: string, rubric: RubricSpec): RewardComputed | null {
  const input = rubricInputOf(events, turnId);
  if (!input) return null;
  const reward = buildRubric(rubric)(input);
  return {
    type: 'RewardComputed',
    data: { turnId, rubric: rubric.kind, reward, details: { status: input.status, tool_calls: [...input.toolCalls], params: rubric } },
  };
}

/** One reward per turn, whoever records it first (the worker at the turn's end, or a `/step`). */
export const rewardIdempotencyKey = (sessionId: string, turnId: string) => `openenv-reward:${sessionId}:${turnId}`;

/** The slice of the event store that recording a reward needs. */
export interface RewardLog {
  append(
    tenantId: string,
    streamId: string,
    events: { type: string; data: unknown; metadata: EventMetadata }[],
    opts: { expectedVersion: 'any'; idempotencyKey: string },
  ): Promise<{ events: readonly { type: string; data: unknown }[] }>;
}

/**
 * Who records a reward: the rubric, whoever runs it (the worker as a turn ends, or a `/step` that
 * gets there first), so both recordings name the same actor.
 */
export const RUBRIC_ACTOR = { type: 'system', id: 'rubric' } as const;

/**
 * Records the reward of `turnId` when its request carried a rubric and it has ended; returns the
 * reward the log holds for it (the first one recorded), or null when there is none to record.
 */
export async function recordTurnReward(
  log: RewardLog,
  at: { tenantId: string; streamId: string; sessionId: string; metadata: EventMetadata },
  events: readonly HubEvent[],
  turnId: string,
  rubric: RubricSpec | null = rubricOfTurn(events, turnId),
): Promise<number | null> {
  if (!rubric) return null;
  const event = rewardFor(events, turnId, rubric);
  if (!event) return null;
  const r = await log.append(at.tenantId, at.streamId, [{ ...event, metadata: at.metadata }], {
    expectedVersion: 'any',
    idempotencyKey: rewardIdempotencyKey(at.sessionId, turnId),
  });
  // On a repeat the store answers with the first recording: its reward is the turn's.
  const recorded = r.events.find((e) => e.type === 'RewardComputed')?.data as RewardComputed['data'] | undefined;
  return recorded ? recorded.reward : event.data.reward;
}
