import { Logger } from '@nestjs/common';
import type { WebSocket } from 'ws';

/**
 * The close code of a socket whose client stopped reading (ADR 0029). In the 4000-4999 range
 * RFC 6455 leaves to applications; 4008 echoes HTTP 408, "you were too slow".
 */
export const SLOW_CONSUMER_CLOSE_CODE = 4008;

/** How a surface tells its client to come back: its own resume parameter, in the close reason. */
export const SLOW_CONSUMER_RESUME = {
  transport: 'resume with ?after=<cursor>',
  openenvHarness: 'resume with &episode_id=<id>&after=<cursor>',
  openenvWs: 'reconnect and send {"type": "state"}',
  acp: 'reconnect and session/load',
} as const;

/**
 * Sends one frame; false when it was not sent (socket closing, or closed as a slow consumer).
 * `catchUp` marks a frame of history the client asked for (a snapshot, a resume's backlog, a
 * load): sent whatever the buffer holds, since its size is bounded by the log read and the
 * client asked for it at once; only what comes live after it counts against the limit.
 */
export type FrameSender = (frame: unknown, catchUp?: boolean) => boolean;

const log = new Logger('sockets');

/**
 * Every frame a streaming WebSocket sends goes through here. A client that stops reading makes
 * ws keep the frames it cannot write (`bufferedAmount`, on top of what the kernel already
 * holds); unchecked, that grows with every event of the session, in ingress memory, for as long
 * as the socket stays open. So a live frame is sent only while fewer than `maxBufferedBytes` of
 * live frames wait (one frame may go over: the check is before it); at or over it the socket is
 * closed {@link SLOW_CONSUMER_CLOSE_CODE}, every later frame is dropped, and `onSlow` releases
 * what feeds the socket at once, not when the closing handshake (which the client is not
 * reading either) ends or times out. The client resumes by cursor: the frames it got are a
 * prefix of the stream, so nothing is missed and nothing comes twice.
 *
 * Catch-up frames leave first and the socket writes in order, so of what waits, the catch-up
 * bytes not yet written come first: live bytes waiting = waiting - (catch-up sent - written).
 * Without that, a resume whose backlog outgrows the kernel's buffers would be closed at once,
 * and a `session/load` of a long session could never finish.
 */
export function boundedSender(ws: WebSocket, maxBufferedBytes: number, resume: string, onSlow: () => void): FrameSender {
  let slow = false;
  let sentBytes = 0;
  let catchUpBytes = 0;
  return (frame, catchUp = false) => {
    if (slow || ws.readyState !== ws.OPEN) return false;
    const waiting = ws.bufferedAmount;
    const catchUpWaiting = Math.max(0, catchUpBytes - Math.max(0, sentBytes - waiting));
    if (!catchUp && waiting - catchUpWaiting >= maxBufferedBytes) {
      slow = true;
      log.log({ msg: 'closing a slow consumer', buffered_bytes: waiting, limit_bytes: maxBufferedBytes });
      // Queued behind the unsent frames: a client that reads again gets what it missed up to here, then this.
      ws.close(SLOW_CONSUMER_CLOSE_CODE, `slow consumer: send buffer full, ${resume}`);
      onSlow();
      return false;
    }
    const text = JSON.stringify(frame);
    const bytes = wireBytes(Buffer.byteLength(text));
    sentBytes += bytes;
    if (catchUp) catchUpBytes = sentBytes;
    ws.send(text);
    return true;
  };
}

/** A server frame's size on the wire (RFC 6455 5.2: unmasked, 2, 4 or 10 header bytes), as `bufferedAmount` counts it. */
function wireBytes(payload: number): number {
  return payload + (payload < 126 ? 2 : payload < 65_536 ? 4 : 10);
}
