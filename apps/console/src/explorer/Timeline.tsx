import { useState } from 'react';
import type { Actor } from '../api/types';
import type { LoggedEvent } from './useEventLog';

/** Rows drawn at first: a long streamed answer is thousands of TextDelta events. */
const SHOWN_AT_FIRST = 500;

function actorLabel(a: Actor | undefined): string {
  if (!a) return '—';
  if (a.type === 'api_key') return `${a.name ?? a.id}${a.role ? ` (${a.role})` : ''}`;
  return a.type === 'worker' ? `worker ${a.id}` : (a.name ?? a.type);
}

/** "14:03:07.412": events of one turn are milliseconds apart, so the time shows them. */
function clock(iso: string): string {
  const d = new Date(iso);
  return `${d.toLocaleTimeString(undefined, { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

export interface TimelineProps {
  events: readonly LoggedEvent[];
  /** The stream position of the last event folded into the state shown, or 0 for none. */
  current: number;
  onPick: (streamPosition: number) => void;
  sessionId: string;
  /** Each turn's first stream position: a turn's events link to its timeline (read from there). */
  turnStarts: ReadonlyMap<string, number>;
}

/** The turn an event belongs to (a delivered message names the turn it came from). */
function turnOf(e: LoggedEvent): string | null {
  const data = e.data as { turnId?: unknown; fromTurnId?: unknown };
  const id = e.type === 'UserMessageInjected' ? data.fromTurnId : data.turnId;
  return typeof id === 'string' ? id : null;
}

/** The session's events as a table: envelope columns, then the payload folded (as text, never HTML). */
export function Timeline({ events, current, onPick, sessionId, turnStarts }: TimelineProps) {
  const [limit, setLimit] = useState(SHOWN_AT_FIRST);
  if (events.length === 0) return <p className="state empty">No event of this type.</p>;
  return (
    <>
      <table className="timeline">
        <caption className="visually-hidden">Events of the session, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Time</th>
            <th scope="col">Type</th>
            <th scope="col">Actor</th>
            <th scope="col">Protocol</th>
            <th scope="col">Correlation id</th>
            <th scope="col">Payload</th>
          </tr>
        </thead>
        <tbody>
          {events.slice(0, limit).map((e) => {
            const turn = turnOf(e);
            return (
              <tr
                key={e.eventId}
                id={`event-${e.streamPosition}`}
                data-position={e.streamPosition}
                data-type={e.type}
                aria-current={e.streamPosition === current ? 'true' : undefined}
              >
                <td>
                  <button type="button" className="ev-at" title="Show the state after this event" onClick={() => onPick(e.streamPosition)}>
                    {e.streamPosition}
                  </button>
                </td>
                <td>
                  <time className="ev-time" dateTime={e.createdAt} title={e.createdAt}>
                    {clock(e.createdAt)}
                  </time>
                </td>
                <td className="ev-type">
                  {e.type}
                  {turn !== null && (
                    <>
                      {' '}
                      <a
                        className="ev-turn"
                        href={`/console/sessions/${encodeURIComponent(sessionId)}/turns/${encodeURIComponent(turn)}?after=${Math.max(0, (turnStarts.get(turn) ?? 1) - 1)}`}
                        aria-label={`turn timeline ${turn}`}
                      >
                        turn timeline
                      </a>
                    </>
                  )}
                </td>
                <td className="ev-actor">{actorLabel(e.metadata.actor)}</td>
                <td className="ev-protocol">{e.metadata.protocol ?? '—'}</td>
                <td className="ev-correlation">{e.metadata.correlationId}</td>
                <td className="ev-payload">
                  <details>
                    <summary>{Object.keys(e.data).join(', ') || 'empty'}</summary>
                    <pre>{JSON.stringify(e.data, null, 2)}</pre>
                  </details>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {events.length > limit && (
        <button type="button" onClick={() => setLimit((n) => n + SHOWN_AT_FIRST)}>
          Show {Math.min(SHOWN_AT_FIRST, events.length - limit)} more of {events.length - limit}
        </button>
      )}
    </>
  );
}
