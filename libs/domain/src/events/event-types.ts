import { AdminEvent } from './admin-events';
import { HubEvent } from './events';
import { ScheduleTickEvent } from './schedule-events';

/** The ACP bridge's fact that `session/new` made a session (on the session's live stream), before its first prompt. */
export const ACP_SESSION_CREATED = 'AcpSessionCreated';
/** The ACP bridge's live-session facts (clients attaching, taking over, leaving, heartbeats), on the session's live stream. */
export const ACP_LIVE_FACT_TYPES = ['AcpClientAttached', 'AcpControlTakenOver', 'AcpClientDetached', 'AcpClientHeartbeat'] as const;
/** An OpenEnv environment's configuration (on the environment's own stream). */
export const OPENENV_ENVIRONMENT_CONFIGURED = 'OpenEnvEnvironmentConfigured';
/** An OpenEnv episode and its session (on the environment's episodes stream). */
export const OPENENV_EPISODE_STARTED = 'OpenEnvEpisodeStarted';
/** An A2A push-notification config set for a task, and one deleted (on the session's `a2a-push-` stream). */
export const A2A_PUSH_CONFIG_SET = 'A2aPushConfigSet';
export const A2A_PUSH_CONFIG_DELETED = 'A2aPushConfigDeleted';

/**
 * Every event type this hub writes: the sessions' (`HubEvent`), the tenant admin stream's
 * (`AdminEvent`) and the protocols' own facts above. A reader that meets any other type is
 * reading a log written by a newer hub (projections count those as unknown).
 */
export const HUB_EVENT_TYPES: ReadonlySet<string> = new Set([
  ...HubEvent.options.map((o) => o.shape.type.value),
  ...AdminEvent.options.map((o) => o.shape.type.value),
  ...ScheduleTickEvent.options.map((o) => o.shape.type.value),
  ACP_SESSION_CREATED,
  ...ACP_LIVE_FACT_TYPES,
  OPENENV_ENVIRONMENT_CONFIGURED,
  OPENENV_EPISODE_STARTED,
  A2A_PUSH_CONFIG_SET,
  A2A_PUSH_CONFIG_DELETED,
]);
