import { AcpRpcError, RPC } from '@hub/protocol-acp';
import { MAX_REPLAY_GAP_MS, MAX_REPLAY_SPEED } from '../transport/replay-pace';

// Watching a past run over ACP (issue 15): `session/load` with `_meta.replay` sends the session's
// history as `session/update` notifications at its recorded pace divided by a speed, read from the
// log in pages, under the same rules as `?replay=1&speed=N` on /v1/transport (replay-pace.ts), and
// answers the load after the last one. Without `_meta.replay` the load replays the history at once.

const SHAPE = `_meta.replay is true, {} or {speed: N} with N a number > 0 and <= ${MAX_REPLAY_SPEED} (default 1, the recorded pace; a recorded pause counts for at most ${MAX_REPLAY_GAP_MS} ms)`;

/**
 * The replay speed a `session/load` asks for in its `_meta`: `undefined` for a plain load (no
 * `replay`, or `null` / `false`), 1 for `true` or `{}`, else `replay.speed`. Anything else is
 * ACP's invalid params (-32602), thrown before anything is read or sent.
 */
export function loadReplaySpeed(meta: Record<string, unknown> | null | undefined): number | undefined {
  const replay = meta?.['replay'];
  if (replay === undefined || replay === null || replay === false) return undefined;
  if (replay === true) return 1;
  if (typeof replay !== 'object' || Array.isArray(replay)) throw new AcpRpcError(RPC.INVALID_PARAMS, `Invalid params for session/load: ${SHAPE}`);
  const speed = (replay as { speed?: unknown }).speed;
  if (speed === undefined) return 1;
  if (typeof speed === 'number' && Number.isFinite(speed) && speed > 0 && speed <= MAX_REPLAY_SPEED) return speed;
  throw new AcpRpcError(RPC.INVALID_PARAMS, `Invalid params for session/load: ${SHAPE}; got speed ${JSON.stringify(speed) ?? String(speed)}`);
}
