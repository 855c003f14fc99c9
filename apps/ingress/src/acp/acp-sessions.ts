import { randomUUID } from 'node:crypto';
import { ACP_SESSION_CREATED, sessionIdOf, sessionStreamId, type Recorded } from '@hub/domain';
import { actorOf, type Principal } from '@hub/auth';
import type { EventStore, StoredEvent, StreamInfo } from '@hub/event-store';
import { openerOf } from '../auth/opener';
import { liveStreamId } from './live-registry';

// Which ACP sessions exist, and their cwd. `session/new` records `AcpSessionCreated {cwd}` as
// the first fact of the session's live stream (`acp-live:<sessionId>`), so a new session exists
// (for list, prompt, resume, load, attach) before its first turn; a session started over another
// protocol exists once its own stream has events. Nothing else creates a session: a prompt,
// resume or attach of an unknown id is ACP's resource-not-found.

export const SESSION_CREATED_FACT = ACP_SESSION_CREATED;

/** What starts the id of every session `session/new` makes. */
const CREATED_ID_PREFIX = 'acp-';

/** Whether `session/new` may have made the session (else it has no creation fact to look for). */
export const mayBeCreatedOverAcp = (sessionId: string): boolean => sessionId.startsWith(CREATED_ID_PREFIX);

/** cwd of sessions the hub knows no cwd for (started over another protocol). */
export const UNKNOWN_CWD = '/';

/** How many sessions `session/list` returns at most (newest first). */
const LIST_LIMIT = 200;

/** How many streams of each kind (live, session) a filtered `session/list` looks through (listStreams' most). */
const LIST_SCAN = 1_000;

/** One row of `session/list` (ACP `SessionInfo`). */
export interface SessionInfo {
  sessionId: string;
  cwd: string;
  updatedAt: string;
}

/**
 * Records a new session and its cwd; the id is new, so the stream must not exist yet. The fact
 * names the key that made it: the session is that key's before its first prompt (a client key's
 * own session, see SessionAccess).
 */
export async function createSession(store: EventStore, principal: Principal, cwd: string, correlationId: string): Promise<string> {
  const sessionId = `${CREATED_ID_PREFIX}${randomUUID()}`;
  const at = new Date().toISOString();
  await store.append(
    principal.tenantId,
    liveStreamId(sessionId),
    [{ type: SESSION_CREATED_FACT, data: { cwd, at }, metadata: { correlationId, protocol: 'acp', actor: actorOf(principal) } }],
    { expectedVersion: 'no_stream' },
  );
  return sessionId;
}

/** The cwd a `session/new` creation fact recorded; null when `fact` is not one. */
function cwdOf(fact: Recorded<StoredEvent> | undefined): string | null {
  if (fact?.type !== SESSION_CREATED_FACT) return null;
  const cwd = (fact.data as { cwd?: unknown }).cwd;
  return typeof cwd === 'string' ? cwd : UNKNOWN_CWD;
}

/** The cwd `session/new` recorded for the session; null when it was not created over ACP. */
async function createdCwd(store: EventStore, tenantId: string, sessionId: string): Promise<string | null> {
  const { events } = await store.readStream(tenantId, liveStreamId(sessionId), { maxCount: 1 });
  return cwdOf(events[0]);
}

/** Whether the session exists: created over ACP, or has events of its own. */
export async function sessionExists(store: EventStore, tenantId: string, sessionId: string): Promise<boolean> {
  const [version, cwd] = await Promise.all([store.streamVersion(tenantId, sessionStreamId(sessionId)), createdCwd(store, tenantId, sessionId)]);
  return version > 0 || cwd !== null;
}

/**
 * The tenant's sessions, newest first, at most 200: ACP-created ones with their cwd (prompted or
 * not) and those of other protocols with `UNKNOWN_CWD`. `cwd` keeps only the sessions created
 * with it; `openedBy` (a client key's prefix) only the sessions that key opened. A filtered list
 * looks through the tenant's newest 1,000 streams of each kind for its 200, so another key's
 * busy sessions do not crowd a client key's out of its list. What each stream began with (the
 * creation fact, the opener) is one read for the whole page.
 */
export async function listSessions(store: EventStore, tenantId: string, cwd: string | null, openedBy?: string): Promise<SessionInfo[]> {
  const scan = cwd === null && openedBy === undefined ? LIST_LIMIT : LIST_SCAN;
  const [live, sessions] = await Promise.all([
    store.listStreams(tenantId, { prefix: liveStreamId(''), limit: scan }),
    store.listStreams(tenantId, { prefix: sessionStreamId(''), limit: scan }),
  ]);
  // A session's own first event names its opener; an ACP-created one's creation fact, until then.
  const firsts = await store.firstEvents(tenantId, [...live.map((s) => s.streamId), ...(openedBy === undefined ? [] : sessions.map((s) => s.streamId))]);
  const byId = new Map<string, { cwd: string | null; updatedAt: string; opener: string | null | undefined }>();
  const touch = (sessionId: string, s: StreamInfo, cwdOfIt: string | null, opener: string | null | undefined) => {
    const known = byId.get(sessionId);
    const updatedAt = known && known.updatedAt > s.updatedAt ? known.updatedAt : s.updatedAt;
    byId.set(sessionId, { cwd: cwdOfIt ?? known?.cwd ?? null, updatedAt, opener: opener ?? known?.opener });
  };
  for (const s of live) {
    const fact = firsts.get(s.streamId);
    // A live stream without a creation fact is attachment history of a session that lives elsewhere.
    if (cwdOf(fact) !== null) touch(s.streamId.slice(liveStreamId('').length), s, cwdOf(fact), openerOf(fact));
  }
  for (const s of sessions) touch(sessionIdOf(s.streamId) ?? s.streamId, s, null, openerOf(firsts.get(s.streamId)));
  return [...byId]
    .filter(([, v]) => openedBy === undefined || v.opener === openedBy)
    .map(([sessionId, v]) => ({ sessionId, cwd: v.cwd ?? UNKNOWN_CWD, updatedAt: new Date(v.updatedAt).toISOString(), known: v.cwd !== null }))
    .filter((s) => cwd === null || (s.known && s.cwd === cwd))
    .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0))
    .slice(0, LIST_LIMIT)
    .map(({ sessionId, cwd: dir, updatedAt }) => ({ sessionId, cwd: dir, updatedAt }));
}
