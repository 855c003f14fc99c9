import { useState } from 'react';
import type { HubApi } from '../api/client';
import { ago, span } from '../ui/format';
import { useNow } from '../ui/useNow';
import {
  EVENT_TYPES,
  WILDCARD,
  useCreateEndpoint,
  useDeliveryLog,
  useEndpointAction,
  useEndpoints,
  useLinkSettings,
  useMayManage,
  useSetLinks,
  type Attempt,
  type Endpoint,
} from './useWebhooks';

/**
 * The tenant's outbound webhooks (issue 28): endpoints (url, events, enabled or why not, failing
 * since), making one (its whsec_ secret shown once), enable/disable, rotate, test, delete, approval
 * links on or off, and per endpoint the delivery log with redelivery. Changing needs an admin or
 * operator key; for the others the screen is read-only.
 */
export function WebhooksScreen({ api }: { api: HubApi }) {
  const q = useEndpoints(api);
  const may = useMayManage(api);
  const now = useNow(1000);
  if (q.isPending || may.isPending) return <p className="state loading">Loading webhooks…</p>;
  if (q.isError)
    return (
      <p className="state error" role="alert">
        Could not load webhooks: {q.error.message}
      </p>
    );
  const manage = may.data === true;
  const endpoints = q.data.endpoints;
  return (
    <section className="screen webhooks">
      <h1>Webhooks</h1>
      {!manage && <p className="muted read-only">Read-only: changing webhooks needs an admin or operator key.</p>}
      <LinkSettings api={api} manage={manage} />
      {manage && <NewEndpoint api={api} />}
      <h2>Endpoints</h2>
      {endpoints.length === 0 ? (
        <p className="state empty">No endpoints yet.</p>
      ) : (
        <ul className="webhook-list">
          {endpoints.map((e) => (
            <EndpointItem key={e.id} api={api} endpoint={e} manage={manage} now={now} />
          ))}
        </ul>
      )}
    </section>
  );
}

function LinkSettings({ api, manage }: { api: HubApi; manage: boolean }) {
  const q = useLinkSettings(api);
  const set = useSetLinks(api);
  // What was clicked, held in React state from the click itself: the mutation's own pending state
  // arrives a tick later, and the controlled box re-rendered in between showed the old value.
  const [wanted, setWanted] = useState<boolean | null>(null);
  if (q.isPending) return null;
  if (q.isError) return <p className="state error">{q.error.message}</p>;
  return (
    <div className="webhook-settings">
      <label>
        <input
          type="checkbox"
          checked={wanted ?? q.data.approvalLinks}
          disabled={!manage || wanted !== null}
          onChange={(e) => {
            setWanted(e.target.checked);
            set.mutate(e.target.checked, { onSettled: () => setWanted(null) });
          }}
        />{' '}
        Approval links in approval.requested (decide without an API key)
      </label>
      {set.isError && (
        <p className="state error" role="alert">
          {set.error.message}
        </p>
      )}
    </div>
  );
}

function NewEndpoint({ api }: { api: HubApi }) {
  const create = useCreateEndpoint(api);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([WILDCARD]);
  const toggle = (t: string, on: boolean) => setEvents((now) => (on ? [...now.filter((x) => x !== t), t] : now.filter((x) => x !== t)));
  return (
    <form
      className="webhook-new"
      aria-label="New endpoint"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate({ url, events, description }, { onSuccess: () => (setUrl(''), setDescription('')) });
      }}
    >
      <h2>New endpoint</h2>
      <label>
        URL <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} required placeholder="https://example.com/hooks" />
      </label>
      <label>
        Description <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} />
      </label>
      <fieldset>
        <legend>Events</legend>
        {[WILDCARD, ...EVENT_TYPES].map((t) => (
          <label key={t} className="event-type">
            <input type="checkbox" checked={events.includes(t)} onChange={(e) => toggle(t, e.target.checked)} /> {t === WILDCARD ? '* (every event)' : t}
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={create.isPending || events.length === 0}>
        Create endpoint
      </button>
      {create.isError && (
        <p className="state error" role="alert">
          {create.error.message}
        </p>
      )}
      {create.isSuccess && <Secret label="Signing secret of the new endpoint" secret={create.data.secret} onDone={() => create.reset()} />}
    </form>
  );
}

/** A secret the hub shows once: here until the person says they have copied it. */
function Secret({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  return (
    <div className="secret" role="status">
      <p>
        {label} (shown once, copy it now): <code aria-label={label}>{secret}</code>
      </p>
      <button type="button" onClick={onDone}>
        I have copied it
      </button>
    </div>
  );
}

function EndpointItem({ api, endpoint: e, manage, now }: { api: HubApi; endpoint: Endpoint; manage: boolean; now: number }) {
  const action = useEndpointAction(api, e.id);
  const [open, setOpen] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const logId = `log-${e.id}`;
  return (
    <li className="webhook" data-endpoint-id={e.id} aria-label={e.url}>
      <div className="webhook-head">
        <strong className="url">{e.url}</strong>{' '}
        <span className={`status ${e.enabled ? 'status-enabled' : 'status-disabled'}`}>{e.enabled ? 'enabled' : 'disabled'}</span>
        {!e.enabled && e.disabledReason && <span className="reason"> — {e.disabledReason}</span>}
      </div>
      {e.description && <p className="muted description">{e.description}</p>}
      <dl className="webhook-facts">
        <dt>Events</dt>
        <dd className="events">{e.events.join(', ')}</dd>
        {e.failingSince && (
          <>
            <dt>Failing since</dt>
            <dd className="failing" title={e.failingSince}>
              {ago(e.failingSince, now)}
            </dd>
          </>
        )}
      </dl>
      <div className="webhook-actions">
        <button type="button" aria-expanded={open} aria-controls={logId} onClick={() => setOpen(!open)}>
          Delivery log
        </button>
        {manage && (
          <>
            <button type="button" onClick={() => action.mutate({ kind: 'test' })} disabled={action.isPending}>
              Send test event
            </button>
            <button type="button" onClick={() => action.mutate({ kind: 'enable', enabled: !e.enabled })} disabled={action.isPending}>
              {e.enabled ? 'Disable' : 'Enable'}
            </button>
            <button
              type="button"
              onClick={() => action.mutate({ kind: 'rotate' }, { onSuccess: (r) => setSecret(r.secret ?? null) })}
              disabled={action.isPending}
            >
              Rotate secret
            </button>
            {confirmDelete ? (
              <span className="confirm" role="group" aria-label="Confirm delete">
                Delete this endpoint and its delivery log?{' '}
                <button type="button" className="deny" onClick={() => action.mutate({ kind: 'delete' })} disabled={action.isPending}>
                  Yes, delete
                </button>{' '}
                <button type="button" onClick={() => setConfirmDelete(false)}>
                  Keep it
                </button>
              </span>
            ) : (
              <button type="button" onClick={() => setConfirmDelete(true)}>
                Delete
              </button>
            )}
          </>
        )}
      </div>
      {secret && <Secret label="New signing secret" secret={secret} onDone={() => setSecret(null)} />}
      {action.isError && (
        <p className="state error" role="alert">
          {action.error.message}
        </p>
      )}
      {action.isSuccess && (
        <p className="state done" role="status">
          {action.data.said}
        </p>
      )}
      {open && <DeliveryLog id={logId} api={api} endpointId={e.id} manage={manage} act={action.mutate} busy={action.isPending} now={now} />}
    </li>
  );
}

/** "in 4 s" or "2 min ago". */
function when(iso: string, now: number): string {
  const left = Date.parse(iso) - now;
  return left > 0 ? `in ${span(left)}` : ago(iso, now);
}

function attemptText(a: Attempt): string {
  return a.error ? `${a.outcome}: ${a.error}` : a.outcome;
}

function DeliveryLog({
  id,
  api,
  endpointId,
  manage,
  act,
  busy,
  now,
}: {
  id: string;
  api: HubApi;
  endpointId: string;
  manage: boolean;
  act: ReturnType<typeof useEndpointAction>['mutate'];
  busy: boolean;
  now: number;
}) {
  const { messages, attempts } = useDeliveryLog(api, endpointId);
  const [since, setSince] = useState('');
  if (messages.isPending || attempts.isPending) return <p className="state loading">Loading the delivery log…</p>;
  if (messages.isError || attempts.isError)
    return (
      <p className="state error" role="alert">
        {(messages.error ?? attempts.error)?.message}
      </p>
    );
  const byMessage = new Map<string, Attempt[]>();
  for (const a of attempts.data.attempts) byMessage.set(a.messageId, [...(byMessage.get(a.messageId) ?? []), a]);
  return (
    <div className="delivery-log" id={id}>
      <h3>Delivery log</h3>
      {manage && (
        <form
          className="redeliver-since"
          onSubmit={(ev) => {
            ev.preventDefault();
            act({ kind: 'redeliver-since', since: new Date(since).toISOString() });
          }}
        >
          <label>
            Redeliver everything since <input type="datetime-local" step="1" value={since} onChange={(ev) => setSince(ev.target.value)} required />
          </label>
          <button type="submit" disabled={busy}>
            Redeliver since
          </button>
        </form>
      )}
      {messages.data.messages.length === 0 ? (
        <p className="state empty">No messages yet.</p>
      ) : (
        <ul className="messages">
          {messages.data.messages.map((m) => (
            <li key={m.id} className="message" data-message-id={m.id} aria-label={`${m.eventType} ${m.id}`}>
              <div className="message-head">
                <code className="message-id">{m.id}</code> <span className="event-type">{m.eventType}</span>{' '}
                <span className={`status message-status status-${m.status}`}>{m.status}</span>{' '}
                <span className="muted" title={m.createdAt}>
                  made {ago(m.createdAt, now)}
                </span>
                {m.nextAttemptAt && <span className="muted next"> · next attempt {when(m.nextAttemptAt, now)}</span>}
                {manage && (
                  <button type="button" onClick={() => act({ kind: 'redeliver', messageId: m.id })} disabled={busy} aria-label={`Redeliver ${m.id}`}>
                    Redeliver
                  </button>
                )}
              </div>
              {/* Scrolls sideways on a phone: focusable so the keyboard can scroll it too. */}
              <div className="table-wrap" tabIndex={0} role="region" aria-label={`Attempts of ${m.id}`}>
                <table className="attempts">
                  <caption className="visually-hidden">Attempts of {m.id}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Started</th>
                      <th scope="col">Outcome</th>
                      <th scope="col">Response</th>
                      <th scope="col">Latency</th>
                      <th scope="col">Next attempt</th>
                    </tr>
                  </thead>
                  <tbody>
                    {(byMessage.get(m.id) ?? []).map((a) => (
                      <tr key={`${a.startedAt}-${a.attempt}`} className="attempt">
                        <td title={a.startedAt}>{ago(a.startedAt, now)}</td>
                        <td className="outcome">{attemptText(a)}</td>
                        <td className="response">{a.responseStatus ?? '—'}</td>
                        <td className="latency">{a.latencyMs} ms</td>
                        <td className="next-attempt" title={a.nextAttemptAt ?? undefined}>
                          {a.nextAttemptAt ? new Date(a.nextAttemptAt).toLocaleString() : '—'}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
