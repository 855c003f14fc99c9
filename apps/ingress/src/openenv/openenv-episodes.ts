import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { actorOf, type Principal, requireGrant } from '@hub/auth';
import { HARNESS_CONTEXT_KEY, MCP_CONTEXT_KEY, RUBRIC_ACTOR, recordTurnReward, rubricOfTurn, type ExternalHarnessSpec } from '@hub/agent';
import { isDomainError, sessionStreamId, type HubEvent, type Recorded, type TurnContext } from '@hub/domain';
import { EventStore } from '@hub/event-store';
import {
  encodeHarnessEventList,
  encodeResetResult,
  encodeStepResult,
  type EnvironmentConfig,
  type EpisodeState,
  type HarnessAction,
  type StepResult,
} from '@hub/protocol-openenv';
import { HarnessStopBus } from '@hub/queue';
import { CommandService } from '../commands/command.service';
import { SessionAccess } from '../auth/session-access';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { TurnOutcomes, type TurnOutcome } from '../streams/turn-outcome.service';
import { EnvironmentRegistry, type Episode } from './environment-registry';
import { rewardsOf } from './episode-log';
import { ModelRequests } from './model-requests';

/** Why a reset/step/state cannot be answered; each edge writes it in its own shape. */
export class OpenEnvRefusal extends Error {
  constructor(
    readonly kind: 'not_found' | 'no_episode' | 'episode_done' | 'busy' | 'invalid' | 'unavailable',
    message: string,
  ) {
    super(message);
  }
}

const MAX_STEP_WAIT_MS = 15 * 60_000;
/** After a timeout cancel, how long to wait for the turn's end to reach this ingress. */
const END_GRACE_MS = 10_000;

/**
 * The simulation API (RFC 005): `reset` starts an episode (a new hub session), `step` runs one
 * conversational turn on it and waits for its outcome, `state` and `trajectory` read the log.
 * Stateless: the environment, its current episode and the step count all come from the log.
 */
@Injectable()
export class OpenEnvEpisodes implements OnApplicationShutdown {
  readonly registry: EnvironmentRegistry;
  private readonly log = new Logger('openenv');
  /** Tells the workers to stop a reset episode's wrapped-harness process (RFC 005: reset stops the harness). */
  private readonly harnessStops: HarnessStopBus;

  constructor(
    private readonly commands: CommandService,
    private readonly outcomes: TurnOutcomes,
    private readonly store: EventStore,
    @Inject(INGRESS_CONFIG) settings: IngressSettings,
    private readonly access: SessionAccess,
  ) {
    this.registry = new EnvironmentRegistry(store);
    this.harnessStops = new HarnessStopBus(settings.redisUrl, settings.queuePrefix);
  }

  /**
   * Tells every worker a session is gone (erased): its wrapped-harness process stops and its
   * cached views are dropped (the same broadcast a reset sends).
   */
  releaseSession(tenantId: string, sessionId: string): Promise<void> {
    return this.harnessStops.publish(tenantId, sessionId);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.harnessStops.close();
  }

  async environment(tenantId: string, env: string): Promise<EnvironmentConfig> {
    const config = await this.registry.get(tenantId, env);
    if (!config) throw new OpenEnvRefusal('not_found', `no environment ${env}: create it with PUT /v1/openenv/${env}`);
    return config;
  }

  async reset(
    principal: Principal,
    env: string,
    req: { episodeId?: string | null; seed?: number | null },
    correlationId: string,
  ): Promise<{ episode: Episode; result: StepResult }> {
    // A reset opens a session: the roles that may submit turns may; its first event names the key.
    requireGrant(principal.role, 'submit');
    const config = await this.environment(principal.tenantId, env);
    const episode = await this.startEpisode(principal, env, config, req, correlationId);
    return { episode, result: encodeResetResult(episode.episodeId) };
  }

  /**
   * A fresh episode of `env` (`/reset`, or a `/harness` socket opened without an episode): the
   * previous episode's wrapped-harness process is stopped (RFC 005: reset stops the harness).
   */
  async startEpisode(
    principal: Principal,
    env: string,
    config: EnvironmentConfig,
    req: { episodeId?: string | null; seed?: number | null },
    correlationId: string,
  ): Promise<Episode> {
    const { tenantId } = principal;
    // An episode is a new session: held to the tenant's sessions and event bytes before it is written.
    await this.commands.admitNewSession(principal, null);
    const previous = config.harness.kind === 'builtin' ? null : await this.registry.episode(tenantId, env);
    const episode = await this.registry.startEpisode(tenantId, env, req, correlationId, actorOf(principal));
    if (previous) await this.harnessStops.publish(tenantId, previous.sessionId);
    return episode;
  }

  async step(
    principal: Principal,
    env: string,
    action: HarnessAction,
    opts: { episodeId?: string | null; episode?: Episode; timeoutS?: number | null; requestId?: string | null },
    correlationId: string,
  ): Promise<StepResult> {
    const config = await this.environment(principal.tenantId, env);
    const episode = opts.episode ?? (await this.registry.episode(principal.tenantId, env, opts.episodeId));
    if (!episode) throw new OpenEnvRefusal('no_episode', 'no episode: call reset first');
    // The one read of the session before the turn: the step count, whether the episode is done,
    // and (with the turn's own events from the wait) the episode so far that the rubric scores.
    const before = await this.sessionEvents(principal.tenantId, episode.sessionId);
    const stepCount = turnsOf(before).length;
    if (isDone(before, stepCount, config))
      throw new OpenEnvRefusal('episode_done', `episode ${episode.episodeId} is done (${stepCount} of max_turns ${config.max_turns}): call reset`);
    const turnId = randomUUID();
    await this.submit(principal, { episode, config }, action, turnId, opts.requestId ?? turnId, correlationId);
    const budgetMs = Math.min(MAX_STEP_WAIT_MS, 1000 * (opts.timeoutS ?? config.harness.session_timeout_s));
    const waited = await this.outcomes.wait(principal.tenantId, episode.sessionId, turnId, budgetMs);
    const outcome = waited.kind === 'pending' ? await this.cancelTimedOut(principal, episode, turnId, correlationId, waited) : waited;
    // A pending outcome carries everything it saw, `before` included: keep each event once.
    const seen = new Set(before.map((e) => e.eventId));
    const after = [...before, ...outcome.events.filter((e) => !seen.has(e.eventId))];
    return this.observe(principal.tenantId, { config, episode, turnId, correlationId }, outcome, after, stepCount + 1);
  }

  /**
   * The state of `episode`, else of the environment's current episode; to a client key another
   * key's episode is no episode at all (issue 16: it sees only the sessions it opened).
   */
  async state(principal: Principal, env: string, episode?: Episode | null): Promise<EpisodeState> {
    const { tenantId } = principal;
    await this.environment(tenantId, env);
    const current = episode ?? (await this.registry.episode(tenantId, env));
    if (!current || !(await this.access.mayRead(principal, current.sessionId))) return { episode_id: null, step_count: 0 };
    const events = await this.sessionEvents(tenantId, current.sessionId);
    return { episode_id: current.episodeId, step_count: turnsOf(events).length, session_id: current.sessionId, env, seed: current.seed };
  }

  /** Every RFC 005 event of an episode, across all its turns. */
  async trajectory(
    principal: Principal,
    env: string,
    episodeId?: string | null,
  ): Promise<{ episode_id: string; session_id: string; events: ReturnType<typeof encodeHarnessEventList>; rewards: ReturnType<typeof rewardsOf> }> {
    const { tenantId } = principal;
    await this.environment(tenantId, env);
    const found = await this.registry.episode(tenantId, env, episodeId);
    // Another key's episode, to a client key, answers exactly as one that does not exist.
    const episode = found && (await this.access.mayRead(principal, found.sessionId)) ? found : null;
    if (!episode) throw new OpenEnvRefusal('no_episode', episodeId ? `no episode ${episodeId}` : 'no episode: call reset first');
    const events = await this.sessionEvents(tenantId, episode.sessionId);
    return {
      episode_id: episode.episodeId,
      session_id: episode.sessionId,
      events: encodeHarnessEventList(events, new ModelRequests(events).messagesOf),
      rewards: rewardsOf(events),
    };
  }

  async sessionEvents(tenantId: string, sessionId: string): Promise<Recorded<HubEvent>[]> {
    return (await this.store.readStream<HubEvent>(tenantId, sessionStreamId(sessionId))).events as Recorded<HubEvent>[];
  }

  /** Submits the step's turn; its context carries the environment's MCP servers to the worker. */
  private async submit(
    principal: Principal,
    on: { episode: Episode; config: EnvironmentConfig },
    action: HarnessAction,
    turnId: string,
    requestId: string,
    correlationId: string,
  ): Promise<void> {
    const context = turnContext(on.config, on.episode);
    const { episode } = on;
    const command = { type: 'SubmitTurn' as const, sessionId: episode.sessionId, turnId, prompt: action.message, context, busyPolicy: 'reject' as const };
    const commandId = `openenv:${episode.sessionId}:${requestId}`;
    let outcome;
    try {
      outcome = await this.commands.dispatch(command, principal, { protocol: 'openenv', correlationId, commandId });
    } catch (e) {
      if (isDomainError(e) && e.code === 'TIMEOUT') throw new OpenEnvRefusal('unavailable', 'the hub did not take the step in time');
      throw e;
    }
    if (!outcome.ok) throw new OpenEnvRefusal(outcome.code === 'SESSION_BUSY' ? 'busy' : 'invalid', outcome.message);
  }

  /**
   * RFC 005: `session_timeout_s` bounds a turn in wall-clock time; a turn over it is cancelled,
   * and the step answers with the turn's end (`error` then `turn_complete`, the RFC's last event),
   * as the trajectory later shows it. Only a cancel that never lands leaves it `pending`.
   */
  private async cancelTimedOut(principal: Principal, episode: Episode, turnId: string, correlationId: string, pending: TurnOutcome): Promise<TurnOutcome> {
    const command = { type: 'CancelTurn' as const, sessionId: episode.sessionId, turnId, reason: 'timeout' as const };
    const commandId = `openenv:${episode.sessionId}:${turnId}:timeout`;
    let after = 0;
    try {
      const cancelled = await this.commands.dispatch(command, principal, { protocol: 'openenv', correlationId, commandId });
      if (cancelled.ok) after = Math.max(0, ...cancelled.events.map((e) => e.globalPosition));
    } catch (e) {
      this.log.warn(`timeout cancel of ${turnId}: ${(e as Error).message}`);
      return pending;
    }
    // The turn's end is committed now (the cancel's, or its own if it won the race): read it,
    // from a state that includes the cancel.
    const ended = await this.outcomes.wait(principal.tenantId, episode.sessionId, turnId, END_GRACE_MS, { after });
    return ended.kind === 'pending' || ended.kind === 'awaiting_approval' ? pending : ended;
  }

  /** The step's observation; its reward is the `RewardComputed` recorded for the turn. */
  private async observe(tenantId: string, step: StepContext, outcome: TurnOutcome, all: Recorded<HubEvent>[], turnNumber: number): Promise<StepResult> {
    const { config, episode, turnId, correlationId } = step;
    const mine = all.filter((e) => 'turnId' in e.data && (e.data as { turnId: string }).turnId === turnId);
    const response = outcome.kind === 'failed' ? '' : outcome.text;
    // The worker scores the turn as it ends; if this step gets there first it records the same
    // reward (same rubric, same log, one idempotency key). A turn not over yet has none (null).
    const metadata = { correlationId, actor: RUBRIC_ACTOR, protocol: 'openenv' as const };
    const at = { tenantId, streamId: sessionStreamId(episode.sessionId), sessionId: episode.sessionId, metadata };
    const reward = await recordTurnReward(this.store, at, all, turnId, rubricOfTurn(all, turnId) ?? config.rubric);
    const markerHit = outcome.kind === 'completed' && config.done_marker !== null && response.includes(config.done_marker);
    // A wrapped harness may signal its task complete itself (RFC 005 `done`), recorded on the turn's end.
    const harnessDone = mine.some((e) => e.type === 'TurnCompleted' && e.data.done === true);
    return encodeStepResult({
      status: outcome.kind,
      response,
      turnEvents: encodeHarnessEventList(mine, new ModelRequests(all).messagesOf),
      turnNumber,
      reward,
      done: markerHit || harnessDone || turnNumber >= config.max_turns,
      episodeId: episode.episodeId,
      ...(outcome.kind === 'failed' ? { error: { code: outcome.code, message: outcome.message } } : {}),
      ...(timedOut(outcome) ? { error: { code: 'TIMEOUT', message: 'the turn ran past its time budget and was cancelled' } } : {}),
    });
  }
}

/**
 * A turn's context in an episode: where it runs, the environment's MCP servers and, for a wrapped
 * harness (`acp` / `command`), the harness the worker runs the turn on.
 */
export function turnContext(config: EnvironmentConfig, episode: Episode): TurnContext {
  return {
    // The rubric rides with the turn: the worker scores it when it ends, with the rubric that applied.
    openenv: { env: episode.env, episode_id: episode.episodeId, ...(config.rubric ? { rubric: config.rubric } : {}) },
    ...(config.mcp_servers.length ? { [MCP_CONTEXT_KEY]: config.mcp_servers } : {}),
    ...(config.harness.kind !== 'builtin' ? { [HARNESS_CONTEXT_KEY]: externalHarness(config) } : {}),
  };
}

function externalHarness(config: EnvironmentConfig): ExternalHarnessSpec {
  const h = config.harness;
  const kind = h.kind === 'acp' ? 'acp' : 'command';
  return {
    kind,
    name: h.name,
    command: h.command,
    working_directory: h.working_directory,
    env_vars: h.env_vars,
    startup_timeout_s: h.startup_timeout_s,
    session_timeout_s: h.session_timeout_s,
    model: h.model,
  };
}

interface StepContext {
  config: EnvironmentConfig;
  episode: Episode;
  turnId: string;
  correlationId: string;
}

/** A step cut off by its time budget: cancelled for `timeout`, or still not over after the cancel. */
function timedOut(outcome: TurnOutcome): boolean {
  return outcome.kind === 'pending' || (outcome.kind === 'cancelled' && outcome.reason === 'timeout');
}

function turnsOf(events: readonly Recorded<HubEvent>[]): string[] {
  return events.flatMap((e) => (e.type === 'TurnRequested' ? [e.data.turnId] : []));
}

/** Done: max_turns reached, the harness said so, or the last completed turn's answer holds the done marker. */
function isDone(events: readonly Recorded<HubEvent>[], turns: number, config: EnvironmentConfig): boolean {
  if (turns >= config.max_turns) return true;
  const lastEnd = [...events].reverse().find((e) => e.type === 'TurnCompleted');
  if (lastEnd?.type !== 'TurnCompleted') return false;
  // The harness said its task is complete (a wrapped harness's `done`), or the answer has the marker.
  return lastEnd.data.done === true || (config.done_marker !== null && lastEnd.data.text.includes(config.done_marker));
}
