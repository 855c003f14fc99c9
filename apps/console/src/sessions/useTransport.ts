import { applyOps, type DeltaOperation, type HarnessState } from '@hub/domain';
import { useCallback, useEffect, useRef, useState } from 'react';

export type Link = 'connecting' | 'live' | 'reconnecting' | 'closed';

type Frame =
  | { type: 'state'; state: HarnessState | null; cursor: number }
  | { type: 'delta'; operations: DeltaOperation[]; cursor: number }
  | { type: 'error'; message: string; code?: string };

/** Sent on the upgrade instead of an Authorization header, which a browser cannot set. */
function protocols(key: string): string[] {
  return ['hub.bearer', `hub.key.${key}`];
}

const FATAL_CLOSES = new Set([1000, 1008, 4401]);

/**
 * A session over the transport WebSocket: the snapshot, then deltas folded with the same
 * `applyOps` the server's projection uses. A dropped socket reconnects with `?after=` the last
 * cursor, so only what was missed is sent again.
 */
export function useTransport(sessionId: string, key: string) {
  const [state, setState] = useState<HarnessState | null>(null);
  const [cursor, setCursor] = useState<number | null>(null);
  const [link, setLink] = useState<Link>('connecting');
  const [errors, setErrors] = useState<string[]>([]);
  const socket = useRef<WebSocket | null>(null);

  useEffect(() => {
    let last: number | null = null;
    let stopped = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const open = (attempt: number) => {
      const url = new URL(`/v1/transport`, window.location.href);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      url.searchParams.set('session', sessionId);
      if (last !== null) url.searchParams.set('after', String(last));
      const ws = new WebSocket(url, protocols(key));
      socket.current = ws;
      ws.onopen = () => setLink('live');
      ws.onmessage = (m) => {
        const f = JSON.parse(String(m.data)) as Frame;
        if (f.type === 'error') return setErrors((e) => [...e.slice(-4), f.message]);
        last = f.cursor;
        setCursor(f.cursor);
        if (f.type === 'state') setState(f.state);
        else setState((s) => (s ? applyOps(s, f.operations) : s));
        attempt = 0;
      };
      ws.onclose = (e) => {
        if (stopped) return;
        if (FATAL_CLOSES.has(e.code)) {
          setLink('closed');
          if (e.reason) setErrors((x) => [...x.slice(-4), e.reason]);
          return;
        }
        setLink('reconnecting');
        retry = setTimeout(() => open(attempt + 1), Math.min(5000, 250 * 2 ** attempt));
      };
    };
    open(0);
    return () => {
      stopped = true;
      clearTimeout(retry);
      socket.current?.close(1000);
    };
  }, [sessionId, key]);

  const send = useCallback((commands: unknown[]) => {
    const ws = socket.current;
    if (!ws || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(JSON.stringify({ type: 'commands', commands }));
    return true;
  }, []);

  /** For tests and the curious: drop the socket as a network would (it reconnects by cursor). */
  const drop = useCallback(() => socket.current?.close(4000, 'dropped by the console'), []);

  return { state, cursor, link, errors, send, drop };
}
