import { foldHarness } from '@hub/domain';
import { useMemo, useState } from 'react';
import { isNotFound, type HubApi } from '../api/client';
import { NotFound } from '../ui/NotFound';
import { download, toNdjson } from './ndjson';
import { ApprovalsAtCursor } from './ApprovalsAtCursor';
import { StateAtCursor } from './StateAtCursor';
import { Timeline } from './Timeline';
import { useEventLog } from './useEventLog';

/**
 * The run explorer: a session's whole event log, filterable by type and exportable as NDJSON,
 * with a cursor slider whose state is `foldHarness` over the events up to it — the very fold
 * the server answers `GET /v1/sessions/ID/state` with, so at the last event the two are equal.
 */
export function ExplorerScreen({ api, sessionId }: { api: HubApi; sessionId: string }) {
  const log = useEventLog(api, sessionId);
  const events = useMemo(() => log.data ?? [], [log.data]);
  const [type, setType] = useState('');
  // How many events are folded; null follows the end of the log as it grows.
  const [at, setAt] = useState<number | null>(null);
  const count = at === null ? events.length : Math.min(at, events.length);
  const view = useMemo(() => foldHarness(events.slice(0, count)), [events, count]);
  const types = useMemo(() => [...new Set(events.map((e) => e.type))].sort(), [events]);
  // Each turn's first event (its request): its events link to the turn's timeline, which reads from there.
  const turnStarts = useMemo(() => {
    const starts = new Map<string, number>();
    for (const e of events) {
      const turnId = (e.data as { turnId?: unknown }).turnId;
      if (typeof turnId === 'string' && !starts.has(turnId)) starts.set(turnId, e.streamPosition);
    }
    return starts;
  }, [events]);
  const shown = useMemo(() => (type ? events.filter((e) => e.type === type) : events), [events, type]);
  const last = count > 0 ? events[count - 1] : undefined;
  const moveTo = (n: number) => setAt(n >= events.length ? null : n);

  if (log.isPending) return <p className="state loading">Loading the session’s events…</p>;
  if (isNotFound(log.error)) return <NotFound sessionId={sessionId} />;
  if (log.isError && events.length === 0) {
    return (
      <p className="state error" role="alert">
        Could not load the session’s events: {log.error.message}
      </p>
    );
  }
  return (
    <section className="screen explorer">
      <header className="session-head">
        <h1>Run explorer · {sessionId}</h1>
        <a href={`/console/sessions/${encodeURIComponent(sessionId)}`}>Live session</a>
        {log.isError && (
          <span className="error-text" role="status">
            not following: {log.error.message}
          </span>
        )}
      </header>
      <div className="cursor-bar">
        <label htmlFor="cursor">Cursor</label>
        <input
          id="cursor"
          type="range"
          min={0}
          max={events.length}
          step={1}
          value={count}
          aria-valuetext={last ? `event ${count} of ${events.length}, ${last.type}` : `before the first of ${events.length} events`}
          onChange={(e) => moveTo(Number(e.target.value))}
        />
        <output htmlFor="cursor" className="cursor-label">
          {last ? `event ${count} of ${events.length} · ${last.type} · cursor ${last.globalPosition}` : `before the first event (${events.length} in all)`}
          {at === null ? ' · following' : ''}
        </output>
      </div>
      <div className="explorer-panes">
        <div className="explorer-log">
          <div className="filters">
            <label>
              Event type{' '}
              <select value={type} onChange={(e) => setType(e.target.value)}>
                <option value="">all ({events.length})</option>
                {types.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" disabled={shown.length === 0} onClick={() => download(`${sessionId}${type ? `.${type}` : ''}.ndjson`, toNdjson(shown))}>
              Export {shown.length} as NDJSON
            </button>
          </div>
          <Timeline
            events={shown}
            sessionId={sessionId}
            turnStarts={turnStarts}
            current={last?.streamPosition ?? 0}
            onPick={(pos) => moveTo(events.findIndex((e) => e.streamPosition === pos) + 1)}
          />
        </div>
        <StateAtCursor state={view.state} cursor={last?.globalPosition ?? 0}>
          <ApprovalsAtCursor events={events.slice(0, count)} />
        </StateAtCursor>
      </div>
    </section>
  );
}
