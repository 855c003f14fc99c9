import type { SessionAccess } from '../auth/session-access';
import type { Logger } from '@nestjs/common';
import type { WebSocket } from 'ws';
import type { HubEvent, Recorded } from '@hub/domain';
import type { EventStore } from '@hub/event-store';
import { encodeHarnessEvents, initialHarnessEventView, type HarnessEvent, type HarnessEventView } from '@hub/protocol-openenv';
import { guarded } from '@hub/telemetry';
import { MAX_REPLAY_GAP_MS, MAX_REPLAY_SPEED, paced } from '../transport/replay-pace';
import { publicErrorMessage } from '../transport/public-error';
import { sessionLogUpTo } from '../transport/session-log-pages';
import { envName } from './environment-config';
import { ModelRequests } from './model-requests';
import type { OpenEnvEpisodes } from './openenv-episodes';
import type { OpenEnvSocket } from './openenv-upgrade';

/** What a replay of an episode uses from the hub. */
export interface HarnessReplayDeps {
  episodes: OpenEnvEpisodes;
  /** A client key replays only episodes its key opened. */
  access: SessionAccess;
  store: EventStore;
  log: Logger;
}

const errorEvent = (message: string, recoverable: boolean): HarnessEvent => ({
  type: 'error',
  timestamp: Date.now() / 1000,
  data: { message, recoverable },
  cursor: 0,
});

/** The episode a replay shows, and the log's head when the socket opened. */
interface ReplayTarget {
  sessionId: string;
  head: number;
  after: number;
  info: Record<string, string>;
}

/**
 * `WS /v1/openenv/<env>/harness?episode_id=ID&replay=1[&speed=N][&after=CURSOR]`: a recorded
 * episode's `HarnessEvent`s, the same ones a live watcher got, paced at the recorded pace divided
 * by N (see `replay-pace.ts`), read from the log as it stood at connect; then close 1000 "replay
 * complete". Nothing runs: no episode is started, and every frame the client sends gets a
 * recoverable `error` event. `speed` is `null` when the query was refused by `replaySpeedOf`.
 */
export async function replayHarnessEpisode(
  ws: WebSocket,
  socket: OpenEnvSocket,
  params: URLSearchParams,
  speed: number | null,
  deps: HarnessReplayDeps,
): Promise<void> {
  const closed = new AbortController();
  ws.on(
    'close',
    guarded('openenv harness replay close', () => closed.abort()),
  );
  socket.slow.addEventListener('abort', () => closed.abort(), { once: true });
  ws.on('message', () =>
    socket.send(errorEvent('this socket replays a recorded episode (?replay=1) and is read-only: messages are refused, nothing was run', true)),
  );
  const target = await openTarget(socket, params, speed, deps);
  if (typeof target === 'string') {
    socket.send(errorEvent(target, false));
    return ws.close(1008, 'cannot open harness replay');
  }
  try {
    await sendPaced(socket, target, speed ?? 1, closed.signal, deps.store);
  } catch (e) {
    if (closed.signal.aborted) return;
    socket.send(errorEvent(publicErrorMessage(e, deps.log, 'openenv harness replay', socket.correlationId), false));
    return ws.close(1011, 'replay failed');
  }
  ws.close(1000, 'replay complete');
}

/** The episode to replay, or why the request is refused (a message for the client). */
async function openTarget(socket: OpenEnvSocket, params: URLSearchParams, speed: number | null, deps: HarnessReplayDeps): Promise<ReplayTarget | string> {
  const afterRaw = params.get('after');
  const after = afterRaw === null ? 0 : Number(afterRaw);
  const wanted = params.get('episode_id');
  if (speed === null)
    return `?replay=1 takes an optional ?speed=N, a number > 0 and <= ${MAX_REPLAY_SPEED} (default 1; a recorded pause counts for at most ${MAX_REPLAY_GAP_MS} ms)`;
  if (!wanted) return '?replay=1 needs ?episode_id=ID: the episode to watch';
  if (!(Number.isSafeInteger(after) && after >= 0)) return 'after must be a non-negative integer cursor';
  const tenantId = socket.principal.tenantId;
  try {
    const env = envName(params.get('env') ?? '');
    await deps.episodes.environment(tenantId, env);
    const episode = await deps.episodes.registry.episode(tenantId, env, wanted);
    if (!episode) throw new Error(`no episode ${wanted}`);
    await deps.access.check(socket.principal, episode.sessionId, 'read');
    const head = await deps.store.headPosition(tenantId);
    if (after > head) throw new Error(`cursor ${after} is ahead of the log (head ${head})`);
    return { sessionId: episode.sessionId, head, after, info: { episode_id: episode.episodeId, session_id: episode.sessionId, env } };
  } catch (e) {
    return publicErrorMessage(e, deps.log, 'openenv harness replay open', socket.correlationId);
  }
}

/** Folds the events up to the cursor, then sends the later ones' HarnessEvents at their pace. */
async function sendPaced(socket: OpenEnvSocket, target: ReplayTarget, speed: number, signal: AbortSignal, store: EventStore): Promise<void> {
  const tenantId = socket.principal.tenantId;
  let view: HarnessEventView = initialHarnessEventView();
  const requests = new ModelRequests();
  let info: Record<string, string> | null = target.info;
  const emit = (e: Recorded<HubEvent>, sending: boolean) => {
    requests.add([e]);
    // Rebuilding a call's messages costs a pass over the log: only for events that are sent.
    const r = encodeHarnessEvents(e, view, sending ? requests.messagesOf : undefined);
    view = r.view;
    if (!sending) return;
    for (const h of r.events) {
      // As live: the episode's ids ride in the data of the first event this socket sends.
      socket.send(info ? { ...h, data: { ...h.data, episode: info } } : h);
      info = null;
    }
  };
  let through: Recorded<HubEvent> | undefined;
  for await (const e of sessionLogUpTo(store, tenantId, target.sessionId, { head: target.after })) {
    emit(e, false);
    through = e;
  }
  const rest = sessionLogUpTo(store, tenantId, target.sessionId, { from: through?.streamPosition, head: target.head });
  for await (const e of paced(rest, speed, signal, through?.createdAt)) emit(e, true);
}
