import type { HarnessState, Link, SessionStream } from '@harness-hub/client';
import { useCallback, useEffect, useState } from 'react';
import type { HubApi } from '../api/client';

/** A tab keeps trying (and says so) however long the hub is away. */
const FOLLOW = { maxFailures: Infinity } as const;

/**
 * A session over the transport WebSocket, with the client library's SessionStream: the snapshot,
 * then deltas folded by its foldFrame; a dropped socket reconnects with `?after=` the last
 * cursor, so only what was missed is sent again, and a frame sent twice is not applied twice.
 * The key goes as a subprotocol (a browser cannot set headers); a person signed in with the
 * identity provider sends none and the session cookie goes by itself.
 */
export function useTransport(api: HubApi, sessionId: string) {
  const [view, setView] = useState<{ state: HarnessState | null; cursor: number | null }>({ state: null, cursor: null });
  const [link, setLink] = useState<Link>('connecting');
  const [errors, setErrors] = useState<string[]>([]);
  const [stream, setStream] = useState<SessionStream | null>(null);

  useEffect(() => {
    const s = api.hub.sessions.open(sessionId, FOLLOW);
    let lastError: string | null = null;
    const note = (message: string) => {
      lastError = message;
      setErrors((e) => [...e.slice(-4), message]);
    };
    const off = s.subscribe((e) => {
      if (e.type === 'frame') {
        if (e.frame.type === 'error') note(e.frame.message);
        else setView(s.view());
      } else if (e.type === 'link') {
        setLink(e.link);
        // Closed for good: say why, unless the error frame before the close said it already.
        if (e.link === 'closed' && s.closeError && s.closeError.message !== lastError) note(s.closeError.message);
      }
    });
    setStream(s);
    return () => {
      off();
      s.close();
    };
  }, [api, sessionId]);

  /**
   * Sends a prompt (with a turn id as its idempotency key: sent again after a reconnection, run
   * once). False when the socket is not live. A refusal comes back as an error frame, shown.
   */
  const submit = useCallback(
    (prompt: string) => {
      if (stream?.link !== 'live') return false;
      stream.submit(prompt).catch(() => undefined);
      return true;
    },
    [stream],
  );
  const cancel = useCallback(() => stream?.cancel(), [stream]);
  const answer = useCallback(
    (type: 'approve' | 'deny', approvalId: string) => (type === 'approve' ? stream?.approve(approvalId) : stream?.deny(approvalId)),
    [stream],
  );

  return { state: view.state, cursor: view.cursor, link, errors, submit, cancel, answer };
}
