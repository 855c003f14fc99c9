import { useState } from 'react';
import type { HubApi } from '../api/client';
import type { Schedule } from '../api/types';
import { ago, span } from '../ui/format';
import { useNow } from '../ui/useNow';
import { usePreview, useScheduleAction, useSchedules } from './useSchedules';

/**
 * The tenant's schedules: timing, paused with its note, last run (linked to the session it made)
 * and next run; pause with a note, resume, run now, backfill a range and the next fire times.
 * Writing needs an operator or admin key; the hub refuses the others and the refusal is shown.
 */
export function SchedulesScreen({ api }: { api: HubApi }) {
  const q = useSchedules(api);
  const now = useNow(1000);
  if (q.isPending) return <p className="state loading">Loading schedules…</p>;
  if (q.isError)
    return (
      <p className="state error" role="alert">
        Could not load schedules: {q.error.message}
      </p>
    );
  const schedules = q.data.schedules;
  return (
    <section className="screen schedules">
      <h1>Schedules</h1>
      {schedules.length === 0 ? (
        <p className="state empty">No schedules yet. Create one with POST /v1/schedules or `hub schedules create`.</p>
      ) : (
        <ul className="schedule-list">
          {schedules.map((s) => (
            <ScheduleItem key={s.id} api={api} schedule={s} now={now} />
          ))}
        </ul>
      )}
    </section>
  );
}

function timing(s: Schedule): string {
  if (s.spec.cron !== undefined) return `cron ${s.spec.cron} (${s.spec.timeZone})`;
  return `every ${span(s.spec.intervalMs ?? 0)}`;
}

/** When the next tick is due; a run asked for (trigger, backfill) makes the schedule due at once. */
function nextRun(s: Schedule, now: number): string {
  if (!s.nextRunAt) return s.paused ? 'paused' : 'none (ended)';
  const left = Date.parse(s.nextRunAt) - now;
  return left > 0 ? `in ${span(left)}` : 'due now';
}

function ScheduleItem({ api, schedule: s, now }: { api: HubApi; schedule: Schedule; now: number }) {
  const action = useScheduleAction(api, s.id);
  const [note, setNote] = useState('');
  const [showPreview, setShowPreview] = useState(false);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const last = s.lastRun;
  return (
    <li className="schedule" data-schedule-id={s.id} aria-label={s.spec.name}>
      <div className="schedule-head">
        <strong className="name">{s.spec.name}</strong> <span className="muted timing">{timing(s)}</span>{' '}
        <span className={`status ${s.paused ? 'status-paused' : 'status-active'}`}>{s.paused ? 'paused' : 'active'}</span>
        {s.paused && s.note && <span className="note"> — {s.note}</span>}
      </div>
      <dl className="schedule-runs">
        <dt>Last run</dt>
        <dd className="last-run">
          {last ? (
            <>
              <span title={last.scheduledAt}>{ago(last.startedAt ?? last.scheduledAt, now)}</span>
              {last.sessionId && (
                <>
                  {' '}
                  on <a href={`/console/sessions/${encodeURIComponent(last.sessionId)}`}>{last.sessionId}</a>
                </>
              )}
            </>
          ) : (
            'none yet'
          )}
        </dd>
        <dt>Next run</dt>
        <dd className="next-run" title={s.nextRunAt ?? undefined}>
          {nextRun(s, now)}
        </dd>
      </dl>
      <div className="schedule-actions">
        {s.paused ? (
          <button type="button" onClick={() => action.mutate({ kind: 'resume' })} disabled={action.isPending}>
            Resume
          </button>
        ) : (
          <>
            <label>
              Note <input value={note} onChange={(e) => setNote(e.target.value)} maxLength={1000} placeholder="why pause" />
            </label>
            <button type="button" onClick={() => action.mutate({ kind: 'pause', note })} disabled={action.isPending}>
              Pause
            </button>
          </>
        )}
        <button type="button" onClick={() => action.mutate({ kind: 'trigger' })} disabled={action.isPending}>
          Run now
        </button>
        <button type="button" aria-expanded={showPreview} onClick={() => setShowPreview(!showPreview)}>
          Next runs
        </button>
      </div>
      <form
        className="schedule-backfill"
        onSubmit={(e) => {
          e.preventDefault();
          action.mutate({ kind: 'backfill', from: new Date(from).toISOString(), to: new Date(to).toISOString() });
        }}
      >
        <label>
          From <input type="datetime-local" step="1" value={from} onChange={(e) => setFrom(e.target.value)} required />
        </label>
        <label>
          To <input type="datetime-local" step="1" value={to} onChange={(e) => setTo(e.target.value)} required />
        </label>
        <button type="submit" disabled={action.isPending}>
          Backfill
        </button>
      </form>
      {action.isError && (
        <p className="state error" role="alert">
          {action.error.message}
        </p>
      )}
      {action.isSuccess && (
        <p className="state done" role="status">
          {action.data}
        </p>
      )}
      {showPreview && <Preview api={api} schedule={s} />}
    </li>
  );
}

function Preview({ api, schedule }: { api: HubApi; schedule: Schedule }) {
  const q = usePreview(api, schedule, 5);
  if (q.isPending) return <p className="state loading">…</p>;
  if (q.isError) return <p className="state error">{q.error.message}</p>;
  return (
    <ol className="preview" aria-label="Next runs">
      {q.data.fireTimes.map((t) => (
        <li key={t}>
          <time dateTime={t}>{new Date(t).toLocaleString()}</time>
        </li>
      ))}
    </ol>
  );
}
