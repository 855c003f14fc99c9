import { z } from 'zod';
import { defineEvent } from './define-event';

// OpenEnv episode facts (RFC 005). They live on the episode's session stream beside its turns,
// so a trajectory read from the log holds the rewards, and a replay reproduces them. Declared
// here, not in events.ts, so the OpenEnv work stays additive; `HubEvent` lists them.

/**
 * A rubric scored a finished turn. Computed after the turn, outside the harness's reach (RFC 005
 * "Reward boundary"): the harness never sees the rubric, and the observation's reward is read
 * from this event, never recomputed.
 */
export const RewardComputed = defineEvent('RewardComputed', {
  turnId: z.string(),
  /** The rubric's kind, e.g. `expected_answer`. */
  rubric: z.string(),
  reward: z.number(),
  /** What the rubric saw and decided, for audit (status, tool calls, parameters...). */
  details: z.record(z.string(), z.unknown()),
});
export type RewardComputed = z.infer<typeof RewardComputed>;

/** An OpenEnv `reset` started this session as a fresh episode of an environment. */
export const EpisodeReset = defineEvent('EpisodeReset', {
  env: z.string(),
  episodeId: z.string(),
  seed: z.number().nullable(),
});
export type EpisodeReset = z.infer<typeof EpisodeReset>;
