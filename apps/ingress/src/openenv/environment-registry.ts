import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  ADMIN_STREAM_ID,
  OPENENV_ENVIRONMENT_CONFIGURED,
  OPENENV_EPISODE_STARTED,
  type Actor,
  type EnvironmentConfigured as AdminEnvironmentConfigured,
} from '@hub/domain';
import type { EventStore } from '@hub/event-store';
import { EnvironmentConfig } from '@hub/protocol-openenv';
import { EpisodeStarted, type Episode } from './episode';
import { recordEpisodeReset } from './episode-log';

export type { Episode };

// Environments and the episodes started in them are kept in the log, on two non-session
// streams per environment (not HubEvents: they configure the edge, they are not turns):
//   openenv-env:<name>       EnvironmentConfigured  (last one wins)
//   openenv-episodes:<name>  EpisodeStarted         (last one is the current episode)
// Each episode's own session stream then begins with SessionOpened + EpisodeReset (HubEvents).
// So every ingress instance sees the same environments and episodes; nothing lives in memory.

const EnvironmentConfigured = z.object({ type: z.literal(OPENENV_ENVIRONMENT_CONFIGURED), data: z.object({ name: z.string(), config: EnvironmentConfig }) });

const envStream = (name: string) => `openenv-env:${name}`;
const episodesStream = (name: string) => `openenv-episodes:${name}`;

export class EnvironmentRegistry {
  constructor(private readonly store: EventStore) {}

  async put(tenantId: string, name: string, config: EnvironmentConfig, actor: Actor, correlationId: string): Promise<void> {
    const event = { type: OPENENV_ENVIRONMENT_CONFIGURED, data: { name, config } };
    const metadata = { correlationId, actor, protocol: 'openenv' as const };
    const res = await this.store.append(tenantId, envStream(name), [{ ...event, metadata }], { expectedVersion: 'any' });
    // Then on the tenant's admin stream (issue 15). Not one transaction with the above: should
    // this one fail, the request fails and a retry records both; the configuration's own event
    // names who made it in any case.
    const recorded: AdminEnvironmentConfigured = {
      type: 'EnvironmentConfigured',
      data: { env: name, stream: envStream(name), version: res.events[0]?.streamPosition ?? 0 },
    };
    await this.store.append(tenantId, ADMIN_STREAM_ID, [{ ...recorded, metadata }], { expectedVersion: 'any' });
  }

  async get(tenantId: string, name: string): Promise<EnvironmentConfig | null> {
    const { events } = await this.store.readStream(tenantId, envStream(name));
    const last = events.at(-1);
    return last ? EnvironmentConfigured.parse({ type: last.type, data: last.data }).data.config : null;
  }

  /** A fresh episode: a new session, so a fresh conversation and a fresh working directory. */
  async startEpisode(
    tenantId: string,
    env: string,
    req: { episodeId?: string | null; seed?: number | null },
    correlationId: string,
    actor: Actor,
  ): Promise<Episode> {
    const episode: Episode = { env, episodeId: req.episodeId ?? randomUUID(), sessionId: `oe.${env}.${randomUUID()}`, seed: req.seed ?? null };
    await this.store.append(
      tenantId,
      episodesStream(env),
      [{ type: OPENENV_EPISODE_STARTED, data: episode, metadata: { correlationId, actor, protocol: 'openenv' } }],
      {
        expectedVersion: 'any',
      },
    );
    await recordEpisodeReset(this.store, tenantId, episode, actor, correlationId);
    return episode;
  }

  /**
   * Makes a fork of an episode's session (`POST /v1/sessions/ID/fork`) an episode of the same
   * environment, its newest, as a reset would: its trajectory, state, steps and `/harness` then
   * serve the branch, which goes on from the parent's conversation, workspace and rewards. One
   * registration per child, however often the fork is repeated.
   */
  async registerFork(
    tenantId: string,
    env: string,
    sessionId: string,
    seed: number | null,
    metadata: { correlationId: string; actor: Actor },
  ): Promise<Episode> {
    const episode: Episode = { env, episodeId: randomUUID(), sessionId, seed };
    const res = await this.store.append(
      tenantId,
      episodesStream(env),
      [{ type: OPENENV_EPISODE_STARTED, data: episode, metadata: { ...metadata, protocol: 'openenv' } }],
      {
        expectedVersion: 'any',
        idempotencyKey: `openenv-fork:${sessionId}`,
      },
    );
    return EpisodeStarted.parse({ type: res.events[0]?.type, data: res.events[0]?.data }).data;
  }

  /** The named episode (its latest reset), or the environment's current one. */
  async episode(tenantId: string, env: string, episodeId?: string | null): Promise<Episode | null> {
    const { events } = await this.store.readStream(tenantId, episodesStream(env));
    const all = events.map((e) => EpisodeStarted.parse({ type: e.type, data: e.data }).data);
    const pick = episodeId ? all.filter((e) => e.episodeId === episodeId) : all;
    return pick.at(-1) ?? null;
  }
}
