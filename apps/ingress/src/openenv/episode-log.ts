import type { Actor, EpisodeReset, HubEvent, Recorded, RewardComputed } from '@hub/domain';
import { sessionStreamId } from '@hub/domain';
import type { EventStore } from '@hub/event-store';
import { buildRubric, type RubricInput } from '@hub/agent';
import type { EnvironmentConfig } from '@hub/protocol-openenv';
import type { Episode } from './environment-registry';

// The episode facts ingress records on an episode's session stream (RFC 005): the reset that
// opened it and each finished turn's reward. The rubric runs here, after the turn's outcome is in
// the log, never inside the worker's agent loop: the harness cannot see or influence it.

const TERMINAL: ReadonlySet<RubricInput['status']> = new Set(['completed', 'failed', 'cancelled']);

/**
 * Opens the episode's session: `SessionOpened` then `EpisodeReset`, as the stream's first events
 * (`no_stream`), so the worker's decider finds an open session and a replay sees the reset.
 */
export async function recordEpisodeReset(store: EventStore, tenantId: string, episode: Episode, actor: Actor | undefined, correlationId: string): Promise<void> {
  const metadata = { correlationId, protocol: 'openenv' as const, ...(actor ? { actor } : {}) };
  const reset: EpisodeReset = { type: 'EpisodeReset', data: { env: episode.env, episodeId: episode.episodeId, seed: episode.seed } };
  const opened: HubEvent = { type: 'SessionOpened', data: { sessionId: episode.sessionId, openedVia: 'openenv' } };
  await store.append(tenantId, sessionStreamId(episode.sessionId), [{ ...opened, metadata }, { ...reset, metadata }], { expectedVersion: 'no_stream' });
}

/**
 * The turn's recorded reward: scores a finished turn once and appends `RewardComputed`
 * (idempotent per turn, so two ingress instances or a retried step record it once), then returns
 * what the log holds. Null when the environment has no rubric or the turn is not over.
 */
export async function recordReward(
  store: EventStore,
  tenantId: string,
  args: { config: EnvironmentConfig; sessionId: string; turnId: string; input: RubricInput; correlationId: string },
): Promise<number | null> {
  const { config, sessionId, turnId, input } = args;
  if (!config.rubric || !TERMINAL.has(input.status)) return null;
  const reward = buildRubric(config.rubric)(input);
  const details = { status: input.status, tool_calls: [...input.toolCalls], params: config.rubric };
  const event: RewardComputed = { type: 'RewardComputed', data: { turnId, rubric: config.rubric.kind, reward, details } };
  const r = await store.append<RewardComputed>(tenantId, sessionStreamId(sessionId), [{ ...event, metadata: { correlationId: args.correlationId, protocol: 'openenv' } }], {
    expectedVersion: 'any',
    idempotencyKey: `openenv-reward:${sessionId}:${turnId}`,
  });
  const recorded = r.events.find((e) => e.type === 'RewardComputed');
  return recorded ? recorded.data.reward : reward;
}

/** What a rubric sees of an ended turn, read from the log; null while the turn has not ended. */
export function rubricInputOf(events: readonly Recorded<HubEvent>[], turnId: string): RubricInput | null {
  const endAt = events.findIndex((e) => (e.type === 'TurnCompleted' || e.type === 'TurnFailed' || e.type === 'TurnCancelled') && e.data.turnId === turnId);
  if (endAt < 0) return null;
  const end = events[endAt];
  const requested = events.find((e) => e.type === 'TurnRequested' && e.data.turnId === turnId);
  const calls = (upTo: number, only?: string) =>
    events.slice(0, upTo + 1).flatMap((e) => (e.type === 'ToolCallStarted' && (only === undefined || e.data.turnId === only) ? [e.data.name] : []));
  return {
    message: requested?.type === 'TurnRequested' ? requested.data.prompt : '',
    response: end.type === 'TurnCompleted' ? end.data.text : '',
    toolCalls: calls(endAt, turnId),
    episodeToolCalls: calls(endAt),
    status: end.type === 'TurnCompleted' ? 'completed' : end.type === 'TurnFailed' ? 'failed' : 'cancelled',
  };
}

/**
 * Scores every ended turn of the episode that has no reward yet: turns that did not come through
 * `/step` (a `/harness` socket, another protocol on the same session) get theirs too. Idempotent.
 */
export async function scoreEndedTurns(store: EventStore, tenantId: string, args: { config: EnvironmentConfig; sessionId: string; correlationId: string }): Promise<void> {
  if (!args.config.rubric) return;
  const { events } = await store.readStream<HubEvent>(tenantId, sessionStreamId(args.sessionId));
  const scored = new Set(events.flatMap((e) => (e.type === 'RewardComputed' ? [e.data.turnId] : [])));
  const ended = events.flatMap((e) => ((e.type === 'TurnCompleted' || e.type === 'TurnFailed' || e.type === 'TurnCancelled') && !scored.has(e.data.turnId) ? [e.data.turnId] : []));
  for (const turnId of ended) {
    const input = rubricInputOf(events as Recorded<HubEvent>[], turnId);
    if (input) await recordReward(store, tenantId, { ...args, turnId, input });
  }
}

/** Every recorded reward of an episode, in order: what a trajectory reports beside its events. */
export function rewardsOf(events: readonly Recorded<HubEvent>[]): { turn_id: string; rubric: string; reward: number; details: Record<string, unknown>; cursor: number }[] {
  return events.flatMap((e) =>
    e.type === 'RewardComputed' ? [{ turn_id: e.data.turnId, rubric: e.data.rubric, reward: e.data.reward, details: e.data.details, cursor: e.globalPosition }] : [],
  );
}
