import { isNotFound, type HubApi } from '../api/client';
import { NotFound } from '../ui/NotFound';
import { TurnRows } from './TurnTimelines';
import { useTurn } from './useTurnPage';

/**
 * One turn's timeline (issue 26), reached from the run explorer: each event of a turn links here.
 * `after` (the stream position before the turn's request, from the link) lets it read the turn's
 * events only, not the session's whole log; without it the log is read from the start.
 */
export function TurnScreen({ api, sessionId, turnId, after }: { api: HubApi; sessionId: string; turnId: string; after: number }) {
  const q = useTurn(api, sessionId, turnId, after);
  const session = `/console/sessions/${encodeURIComponent(sessionId)}`;
  if (isNotFound(q.error)) return <NotFound sessionId={sessionId} />;
  return (
    <section className="screen turn-screen">
      <header className="session-head">
        <h1>
          Turn {turnId} · {sessionId}
        </h1>
        <a href={session}>Live session</a> <a href={`${session}/events`}>Run explorer</a>
      </header>
      <section className="turn-timelines" aria-labelledby="timeline-title">
        <h2 id="timeline-title">Turn timeline</h2>
        {q.isPending ? (
          <p className="state loading">Loading the turn…</p>
        ) : q.isError ? (
          <p className="state error" role="alert">
            Could not load the turn: {q.error.message}
          </p>
        ) : q.data === null ? (
          <p className="state empty">The session has no turn {turnId}.</p>
        ) : (
          <ol className="turn-list">
            <TurnRows turn={q.data} sessionId={sessionId} />
          </ol>
        )}
      </section>
    </section>
  );
}
