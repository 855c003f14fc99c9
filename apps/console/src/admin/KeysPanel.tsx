import { useState } from 'react';
import { ApiError, type HubApi } from '../api/client';
import { time } from '../ui/format';
import { useNow } from '../ui/useNow';
import { ROLES, keyState, useCreateKey, useKeys, useRevokeKey, type ApiKey, type Role } from './useAdmin';

/** Refused for its role: the hub's 403 on an admin route, said as what a person can do about it. */
export function needsAdmin(e: unknown): boolean {
  return e instanceof ApiError && e.status === 403;
}

export function KeysPanel({ api }: { api: HubApi }) {
  const q = useKeys(api);
  const now = useNow(10_000);
  return (
    <section className="admin-panel" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      {q.isPending ? (
        <p className="state loading">Loading keys…</p>
      ) : q.isError ? (
        <p className="state error" role="alert">
          {needsAdmin(q.error) ? 'Managing keys needs an admin key.' : `Could not load keys: ${q.error.message}`}
        </p>
      ) : (
        <>
          <NewKeyForm api={api} />
          <ul className="key-list" aria-label="Keys">
            {q.data.keys.map((k) => (
              <KeyItem key={k.prefix} api={api} k={k} now={now} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** `datetime-local`'s value (the browser's time zone) as an ISO time, or undefined when empty. */
function isoOf(local: string): string | undefined {
  return local ? new Date(local).toISOString() : undefined;
}

function NewKeyForm({ api }: { api: HubApi }) {
  const create = useCreateKey(api);
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('client');
  const [expires, setExpires] = useState('');
  return (
    <form
      className="admin-form"
      aria-label="New key"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate({ name, role, expiresAt: isoOf(expires) }, { onSuccess: () => (setName(''), setExpires('')) });
      }}
    >
      <h3>New key</h3>
      <label>
        Name <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
      </label>
      <label>
        Role{' '}
        <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <label>
        Expires (optional) <input type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} />
      </label>
      <button type="submit" disabled={create.isPending}>
        Create key
      </button>
      {create.isError && (
        <p className="state error" role="alert">
          {create.error.message}
        </p>
      )}
      {create.isSuccess && (
        <div className="secret" role="status">
          <p>
            Key {create.data.name} ({create.data.role}), shown once, copy it now: <code aria-label="The new key">{create.data.apiKey}</code>
          </p>
          <button type="button" onClick={() => create.reset()}>
            I have copied it
          </button>
        </div>
      )}
    </form>
  );
}

function KeyItem({ api, k, now }: { api: HubApi; k: ApiKey; now: number }) {
  const revoke = useRevokeKey(api);
  const [confirming, setConfirming] = useState(false);
  const state = keyState(k, now);
  return (
    <li className={`key key-${state}`} aria-label={`Key ${k.prefix}`}>
      <div className="key-head">
        <code>{k.prefix}</code> <strong>{k.name}</strong> <span className="role">{k.role}</span> <span className={`key-state ${state}`}>{state}</span>
      </div>
      <dl className="key-facts">
        <dt>Created</dt>
        <dd>{time(k.createdAt)}</dd>
        <dt>Expires</dt>
        <dd>{k.expiresAt ? time(k.expiresAt) : 'never'}</dd>
        <dt>Last used</dt>
        <dd>{k.lastUsedAt ? time(k.lastUsedAt) : 'never'}</dd>
        {k.revokedAt && (
          <>
            <dt>Revoked</dt>
            <dd>{time(k.revokedAt)}</dd>
          </>
        )}
      </dl>
      {state !== 'revoked' &&
        (confirming ? (
          <div className="key-actions" role="group" aria-label={`Revoke ${k.prefix}?`}>
            <span>Revoke {k.prefix}? Its sockets close within seconds.</span>
            <button
              type="button"
              className="deny"
              onClick={() => revoke.mutate(k.prefix, { onSettled: () => setConfirming(false) })}
              disabled={revoke.isPending}
            >
              Yes, revoke {k.prefix}
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </div>
        ) : (
          <div className="key-actions">
            <button type="button" className="deny" onClick={() => setConfirming(true)} aria-label={`Revoke ${k.prefix}`}>
              Revoke
            </button>
          </div>
        ))}
      {revoke.isError && (
        <p className="state error" role="alert">
          {revoke.error.message}
        </p>
      )}
    </li>
  );
}
