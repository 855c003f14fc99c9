import { z } from 'zod';
import { OPENENV_EPISODE_STARTED } from '@hub/domain';

/** An environment's episode as its `EpisodeStarted` event (on `openenv-episodes:<name>`) records it. */
export const EpisodeStarted = z.object({
  type: z.literal(OPENENV_EPISODE_STARTED),
  data: z.object({ env: z.string(), episodeId: z.string(), sessionId: z.string(), seed: z.number().nullable() }),
});
export type Episode = z.infer<typeof EpisodeStarted>['data'];
