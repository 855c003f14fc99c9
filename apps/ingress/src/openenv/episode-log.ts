import type { Actor, EpisodeReset, HubEvent, Recorded } from '@hub/domain';
import { sessionStreamId } from '@hub/domain';
import type { EventStore } from '@hub/event-store';
import type { Episode } from './episode';

// The episode facts on an episode's session stream (RFC 005): the reset that opened it, recorded
// here, and each ended turn's reward, recorded by the worker when the turn ends (see
// libs/agent/src/rubrics/score.ts) or by a `/step` that gets there first.

/**
 * Opens the episode's session: `SessionOpened` then `EpisodeReset`, as the stream's first events
 * (`no_stream`), so the worker's decider finds an open session and a replay sees the reset.
 */
export async function recordEpisodeReset(store: EventStore, tenantId: string, episode: Episode, actor: Actor, correlationId: string): Promise<void> {
  const metadata = { correlationId, actor, protocol: 'openenv' as const };
  const reset: EpisodeReset = { type: 'EpisodeReset', data: { env: episode.env, episodeId: episode.episodeId, seed: episode.seed } };
  const opened: HubEvent = { type: 'SessionOpened', data: { sessionId: episode.sessionId, openedVia: 'openenv' } };
  await store.append(
    tenantId,
    sessionStreamId(episode.sessionId),
    [
      { ...opened, metadata },
      { ...reset, metadata },
    ],
    { expectedVersion: 'no_stream' },
  );
}

/** Every recorded reward of an episode, in order: what a trajectory reports beside its events. */
export function rewardsOf(
  events: readonly Recorded<HubEvent>[],
): { turn_id: string; rubric: string; reward: number; details: Record<string, unknown>; cursor: number }[] {
  return events.flatMap((e) =>
    e.type === 'RewardComputed'
      ? [{ turn_id: e.data.turnId, rubric: e.data.rubric, reward: e.data.reward, details: e.data.details, cursor: e.globalPosition }]
      : [],
  );
}
