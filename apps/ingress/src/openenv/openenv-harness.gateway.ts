import { guarded } from '@hub/telemetry';
import { Inject, Logger } from '@nestjs/common';
import { OnGatewayConnection, WebSocketGateway } from '@nestjs/websockets';
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import { mayDo, refusal, type Principal } from '@hub/auth';
import { DomainError, retryAfterMsOf, type HubEvent, type Recorded, type TurnContext } from '@hub/domain';
import { SessionAccess } from '../auth/session-access';
import { encodeHarnessEvents, initialHarnessEventView, type HarnessEvent, type HarnessEventView } from '@hub/protocol-openenv';
import { EventStore } from '@hub/event-store';
import { CommandService } from '../commands/command.service';
import { SessionStreams } from '../streams/session-streams.service';
import type { UpgradeRequest } from '../transport/authenticated-ws.adapter';
import { SLOW_CONSUMER_RESUME } from '../transport/slow-consumer';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { checkText, parseJsonInput } from '@hub/protocol-input';
import { envName } from './environment-config';
import { ModelRequests } from './model-requests';
import { OpenEnvEpisodes, turnContext } from './openenv-episodes';
import { replayHarnessEpisode } from './openenv-harness-replay';
import { OPENENV_HARNESS_PATH, openEnvSocket, upgradeParams } from './openenv-upgrade';
import { publicErrorMessage } from '../transport/public-error';
import { replaySpeedOf } from '../transport/replay-pace';

/**
 * `WS /v1/openenv/<env>/harness[?episode_id=ID][&after=CURSOR]` — RFC 005 production mode: each
 * text frame (a message, or `{"message": ...}`) is one turn, and the episode's `HarnessEvent`s
 * stream out as they are recorded, each with its cursor (the first also with `data.episode`).
 * Without `episode_id` a fresh episode starts (RFC: the socket resets the environment); with it,
 * the socket watches and steers that episode — one run by a training loop over `/step` included.
 * With `episode_id`, `&replay=1[&speed=N]` replays the recorded episode instead, read-only and
 * paced (openenv-harness-replay.ts), and closes 1000 at the end of the log.
 */
@WebSocketGateway({ path: OPENENV_HARNESS_PATH })
export class OpenEnvHarnessGateway implements OnGatewayConnection {
  private readonly log = new Logger('openenv');

  constructor(
    private readonly episodes: OpenEnvEpisodes,
    private readonly streams: SessionStreams,
    private readonly commands: CommandService,
    private readonly store: EventStore,
    private readonly access: SessionAccess,
    @Inject(INGRESS_CONFIG) private readonly settings: IngressSettings,
  ) {}

  async handleConnection(ws: WebSocket, req: UpgradeRequest): Promise<void> {
    const socket = openEnvSocket(ws, req, this.settings.wsMaxBufferedBytes, SLOW_CONSUMER_RESUME.openenvHarness);
    if (!socket) return;
    const { principal, correlationId, send } = socket;
    const params = upgradeParams(req);
    const replaySpeed = replaySpeedOf(params);
    if (replaySpeed !== undefined)
      return replayHarnessEpisode(ws, socket, params, replaySpeed, { episodes: this.episodes, access: this.access, store: this.store, log: this.log });
    // Every frame is an RFC 005 HarnessEvent (a strict client rejects anything else): the
    // episode's ids ride in the `data.episode` of the first event this socket sends.
    let episodeInfo: Record<string, string> | null = null;
    const sendEvent = (h: HarnessEvent, catchUp = false) => {
      const first = episodeInfo;
      episodeInfo = null;
      send(first ? { ...h, data: { ...h.data, episode: first } } : h, catchUp);
    };
    const fail = (message: string) => sendEvent({ type: 'error', timestamp: Date.now() / 1000, data: { message, recoverable: false }, cursor: 0 });
    // A used-up tenant limit: recoverable, with the wait (the socket's next message may get through).
    const limited = (e: unknown): boolean => {
      const retryAfterMs = retryAfterMsOf(e);
      if (retryAfterMs === undefined) return false;
      sendEvent({
        type: 'error',
        timestamp: Date.now() / 1000,
        data: { message: (e as Error).message, code: 'RATE_LIMITED', recoverable: true, retry_after_ms: retryAfterMs },
        cursor: 0,
      });
      return true;
    };
    // Messages may arrive before the stream is open: take them now, submit them once it is.
    let open!: () => void;
    let chain: Promise<unknown> = new Promise<void>((resolve) => (open = resolve));
    let sessionId = '';
    let context: TurnContext = {};
    ws.on('message', (data) => {
      chain = chain.then(() =>
        sessionId
          ? socket.inTrace('openenv harness frame', () => this.submit(principal, { sessionId, context }, data.toString(), correlationId, fail, limited))
          : undefined,
      );
      chain = chain.catch((e: unknown) => this.log.error(`openenv harness frame: ${(e as Error)?.stack ?? String(e)}`));
    });
    const afterRaw = params.get('after');
    const after = afterRaw === null ? undefined : Number(afterRaw);
    try {
      if (after !== undefined && !(Number.isSafeInteger(after) && after >= 0)) throw new Error('after must be a non-negative integer cursor');
      const env = envName(params.get('env') ?? '');
      const config = await this.episodes.environment(principal.tenantId, env);
      const wanted = params.get('episode_id');
      // Without an episode the socket starts one: a submit (issue 16), named after this key.
      if (!wanted && !mayDo(principal.role, 'submit')) throw new DomainError('FORBIDDEN', refusal(principal.role, 'submit'));
      const episode = wanted
        ? await this.episodes.registry.episode(principal.tenantId, env, wanted)
        : await this.episodes.startEpisode(principal, env, config, {}, correlationId);
      if (!episode) throw new Error(`no episode ${wanted}`);
      await this.access.check(principal, episode.sessionId, 'read');
      let view: HarnessEventView = initialHarnessEventView();
      const requests = new ModelRequests();
      const emit = (batch: Recorded<HubEvent>[], live: boolean) => {
        requests.add(batch);
        for (const e of batch) {
          const sending = live || after === undefined || e.globalPosition > after;
          // Rebuilding a call's messages costs a pass over the log: only for events that are sent.
          const r = encodeHarnessEvents(e, view, sending ? requests.messagesOf : undefined);
          view = r.view;
          if (sending) r.events.forEach((h) => sendEvent(h, !live));
        }
      };
      let opened = false;
      const pending: Recorded<HubEvent>[][] = [];
      // Only `close` is kept past this block: the feed's history (the whole episode) is sent once.
      const { close: closeFeed, history } = await this.streams.open(
        principal.tenantId,
        episode.sessionId,
        (batch) => (opened ? emit(batch, true) : void pending.push(batch)),
        { after },
      );
      ws.on(
        'close',
        guarded('openenv harness close', () => closeFeed()),
      );
      // A client that stopped reading is released at once, not when its closing handshake times out.
      socket.slow.addEventListener('abort', () => void closeFeed(), { once: true });
      episodeInfo = { episode_id: episode.episodeId, session_id: episode.sessionId, env };
      emit(history, false);
      opened = true;
      pending.splice(0).forEach((b) => emit(b, true));
      context = turnContext(config, episode);
      sessionId = episode.sessionId;
    } catch (e) {
      // 1013: "try again later", for an episode refused by a used-up limit.
      if (limited(e)) ws.close(1013, 'tenant limit used up');
      else {
        fail(publicErrorMessage(e, this.log, 'openenv harness open', correlationId));
        ws.close(1008, 'cannot open harness stream');
      }
    } finally {
      open();
    }
  }

  private async submit(
    principal: Principal,
    on: { sessionId: string; context: TurnContext },
    raw: string,
    correlationId: string,
    fail: (m: string) => void,
    limited: (e: unknown) => boolean,
  ): Promise<void> {
    const { sessionId, context } = on;
    const message = messageOf(raw);
    if (typeof message !== 'string') return fail(message.refused);
    if (!message) return fail('send a non-empty message (text, or {"message": "..."})');
    const turnId = randomUUID();
    const command = { type: 'SubmitTurn' as const, sessionId, turnId, prompt: message, context, busyPolicy: 'enqueue' as const };
    try {
      const outcome = await this.commands.dispatch(command, principal, { protocol: 'openenv', correlationId, commandId: `openenv:${sessionId}:${turnId}` });
      if (!outcome.ok) fail(`${outcome.code}: ${outcome.message}`);
    } catch (e) {
      if (limited(e)) return;
      this.log.warn(`harness submit: ${(e as Error).message}`);
      fail('the hub did not take the message');
    }
  }
}

/**
 * The frame's message (`{"message": ...}`, or the text itself), or '' when it is blank, or why
 * the hub's input check (`@hub/protocol-input`: depth, size, NUL, unpaired surrogates) refused it.
 */
function messageOf(raw: string): string | { refused: string } {
  let text = raw;
  const parsed = parseJsonInput(raw);
  // Not JSON (kind 'syntax'): the frame is the message itself (RFC 005 sends plain text).
  if (!parsed.ok && parsed.kind !== 'syntax') return { refused: parsed.message };
  const j = parsed.ok ? parsed.value : null;
  if (j !== null && typeof j === 'object' && typeof (j as { message?: unknown }).message === 'string') text = (j as { message: string }).message;
  const bad = checkText(text, 'message');
  if (bad) return { refused: bad.message };
  return text.trim() ? text : '';
}
