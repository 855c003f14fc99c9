import { useState } from 'react';
import type { HubApi } from '../api/client';
import type { Step, TurnTimeline } from './turn-steps';
import { lastPage, pageBefore, type PageStart } from './turn-paging';
import { TURNS_PER_PAGE, eventReader, turnCount, useTurnPage } from './useTurnPage';

/** "1.2 s", "340 ms", "2 min 5 s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const MARK: Partial<Record<Step['outcome'], string>> = {
  failed: '✕ failed',
  cancelled: '✕ cancelled',
  denied: '✕ denied',
  interrupted: '⚠ interrupted',
  open: '… running',
};

/**
 * Each turn of the session as a timeline (issue 26): one row per step, its bar placed and sized
 * to scale within the turn, linking to the step's events in the run explorer; failures,
 * cancellations, denials and interrupted steps marked in words, not colour alone. Paged by turn.
 */
export function TurnTimelines({ api, sessionId }: { api: HubApi; sessionId: string }) {
  // The `after` of each page shown since page `base` (1 from the first page, the last page's
  // number after a jump there): going back is popping one, or reading back before the first.
  const [{ base, starts }, setPages] = useState<{ base: number; starts: number[] }>({ base: 1, starts: [0] });
  const [jumping, setJumping] = useState<string | null>(null);
  const after = starts[starts.length - 1];
  const page = base + starts.length - 1;
  const q = useTurnPage(api, sessionId, after);
  const first = (page - 1) * TURNS_PER_PAGE + 1;
  const jump = (how: () => Promise<PageStart>) => {
    setJumping(null);
    how().then(
      (to) => setPages({ base: to.page, starts: [to.after] }),
      (e: unknown) => setJumping(e instanceof Error ? e.message : String(e)),
    );
  };
  const earlier = () => {
    if (starts.length > 1) setPages({ base, starts: starts.slice(0, -1) });
    else jump(() => pageBefore(eventReader(api, sessionId), { after, page }, TURNS_PER_PAGE));
  };
  const last = () => jump(async () => lastPage(eventReader(api, sessionId), await turnCount(api, sessionId), TURNS_PER_PAGE));
  return (
    <section className="turn-timelines" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Turn timeline</h2>
      {q.isPending ? (
        <p className="state loading">Loading turns…</p>
      ) : q.isError ? (
        <p className="state error" role="alert">
          Could not load the turns: {q.error.message}
        </p>
      ) : q.data.turns.length === 0 ? (
        <p className="state empty">No turn yet.</p>
      ) : (
        <>
          <ol className="turn-list" start={first}>
            {q.data.turns.map((t) => (
              <TurnRows key={t.turnId} turn={t} sessionId={sessionId} />
            ))}
          </ol>
          <nav className="turn-pages" aria-label="Turn pages">
            <button type="button" disabled={page === 1} onClick={() => setPages({ base: 1, starts: [0] })}>
              First turns
            </button>
            <button type="button" disabled={page === 1} onClick={earlier}>
              Earlier turns
            </button>
            <span>
              Turns {first}–{first + q.data.turns.length - 1}
            </span>
            <button type="button" disabled={q.data.next === null} onClick={() => q.data.next !== null && setPages({ base, starts: [...starts, q.data.next] })}>
              Later turns
            </button>
            <button type="button" disabled={q.data.next === null} onClick={last}>
              Last turns
            </button>
          </nav>
          {jumping !== null && (
            <p className="state error" role="alert">
              Could not find that page: {jumping}
            </p>
          )}
        </>
      )}
    </section>
  );
}

export function TurnRows({ turn, sessionId }: { turn: TurnTimeline; sessionId: string }) {
  const span = Math.max(1, turn.end - turn.start);
  const events = (s: Step) => `/console/sessions/${encodeURIComponent(sessionId)}/events#event-${s.positions[0]}`;
  return (
    <li className={`turn turn-${turn.status}`} aria-label={`Turn ${turn.turnId}`}>
      <div className="turn-head">
        <strong>{turn.turnId}</strong> <span className={`turn-status ${turn.status}`}>{turn.status}</span>{' '}
        <span className="muted">{duration(turn.end - turn.start)}</span>
      </div>
      <ul className="steps">
        {turn.steps.map((s, i) => {
          const left = ((s.start - turn.start) / span) * 100;
          const width = Math.max(0.5, ((s.end - s.start) / span) * 100);
          const mark = MARK[s.outcome];
          const text = `${s.label}: ${duration(s.end - s.start)}, ${s.detail}${mark ? `, ${mark}` : ''}`;
          return (
            <li key={i} className={`step step-${s.kind} outcome-${s.outcome}`} data-duration-ms={s.end - s.start} data-kind={s.kind}>
              <span className="step-label">
                {s.label} <span className="muted">{duration(s.end - s.start)}</span> {mark && <span className="step-mark">{mark}</span>}
              </span>
              <span className="step-track">
                <a
                  className="step-bar"
                  href={events(s)}
                  style={{ left: `${Math.min(left, 99.5)}%`, width: `${Math.min(width, 100 - Math.min(left, 99.5))}%` }}
                  aria-label={text}
                  title={text}
                />
              </span>
              <span className="step-detail muted">{s.detail}</span>
            </li>
          );
        })}
      </ul>
    </li>
  );
}
