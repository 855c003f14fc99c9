import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Request, Response } from 'express';
import { KeyLiveness, PersonSessions, type Principal } from '@hub/auth';
import { KeyChanges } from '../auth/key-changes';
import { KeyRecheck } from '../auth/key-recheck';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';

const HEARTBEAT_MS = 15_000;

/** The last frame of a stream whose key was revoked: `event: error` with this code. */
const STREAM_KEY_REVOKED = 'UNAUTHENTICATED';

/** One Server-Sent Events response, opened with its headers. */
export interface EventStream {
  /** An `event:` frame; `id` becomes the client's `Last-Event-ID`. */
  send(event: string, data: unknown, id?: number): void;
  /** A frame exactly as given, for a protocol that frames its own events (AG-UI's encoder). */
  write(frame: string): void;
  /** Runs `close` once the stream has ended (the client went, or its key was revoked), whenever that was. */
  onClose(close: () => void): void;
  /** Ends the stream from this side (the client resumes after the last id it got). */
  end(): void;
}

/**
 * The Server-Sent Events streams of this process (the approval and session feeds). A stream is
 * held under its API key like a socket: when the key is revoked or expires (checked every
 * `HUB_KEY_RECHECK_MS`, and at once when a key changes) it gets `event: error` with code
 * UNAUTHENTICATED and ends, so a revoked key stops receiving a tenant's live data.
 */
@Injectable()
export class EventStreams implements OnApplicationShutdown {
  private readonly keys: KeyRecheck<Response>;
  private readonly log = new Logger('event-streams');
  /** A stream's own last frame for a revoked key, when its protocol has one (AG-UI: RUN_ERROR). */
  private readonly revokedFrames = new WeakMap<Response, string>();

  constructor(liveness: KeyLiveness, changes: KeyChanges, @Inject(INGRESS_CONFIG) settings: IngressSettings, sessions: PersonSessions) {
    this.keys = new KeyRecheck(
      liveness,
      settings.keyRecheckMs,
      'event stream',
      (res, p) => {
        this.log.log(`ending an event stream of key ${p.keyPrefix}: the key was revoked`);
        res.write(
          this.revokedFrames.get(res) ??
            `event: error\ndata: ${JSON.stringify({ code: STREAM_KEY_REVOKED, detail: 'the API key of this stream was revoked; sign in again with a valid key' })}\n\n`,
        );
        res.end();
      },
      sessions,
    );
    changes.onChange(() => void this.keys.sweep());
  }

  /**
   * Starts a Server-Sent Events response for `principal`: headers that keep proxies from
   * buffering, and a comment line every 15 s so idle connections are not cut. Call it after
   * every check that can still answer with a problem+json: once this runs the status is 200.
   */
  open(req: Request, res: Response, principal: Principal, revokedFrame?: string): EventStream {
    if (revokedFrame !== undefined) this.revokedFrames.set(res, revokedFrame);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    let ended = false;
    const closers: (() => void)[] = [];
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      this.keys.delete(res);
      for (const c of closers.splice(0)) c();
    };
    req.on('close', end);
    res.on('finish', end);
    this.keys.add(res, principal);
    return {
      send: (event, data, id) => void (ended || res.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)),
      write: (frame) => void (ended || res.write(frame)),
      onClose: (close) => (ended ? close() : void closers.push(close)),
      end: () => void (ended || res.end()),
    };
  }

  onApplicationShutdown(): void {
    this.keys.stop();
  }
}
