import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { isNotFound, type HubApi } from '../api/client';
import { needsAdmin } from '../admin/KeysPanel';
import { ROLES } from '../admin/useAdmin';
import { draftOf, EMPTY_DRAFT, providerBody, type ProviderDraft, type ProviderView } from './idp-form';

// `GET`, `PUT`, `DELETE /v1/admin/idp` (issue 24, docs/sign-in-oidc.md): a tenant has at most one
// identity provider. The document does not describe these answers, so they are written out in
// idp-form.ts, as the admin keys screen does.
const KEY = ['admin-idp'];

function useProvider(api: HubApi) {
  return useQuery({ queryKey: KEY, queryFn: () => api.send<{ provider: ProviderView | null }>('GET', '/v1/admin/idp'), retry: false });
}

/**
 * The tenant's identity provider (issue 24), an admin's: what it is (never its client secret),
 * set or change it, remove it. People sign in to the console with it ("Sign in with <name>");
 * their groups give their role through the group mappings.
 */
export function IdpScreen({ api }: { api: HubApi }) {
  const q = useProvider(api);
  return (
    <section className="screen admin idp">
      <h1>Identity provider</h1>
      {q.isPending ? (
        <p className="state loading">Loading the identity provider…</p>
      ) : q.isError ? (
        <p className="state error" role="alert">
          {needsAdmin(q.error) ? 'The identity provider needs an admin key.' : `Could not load the identity provider: ${q.error.message}`}
        </p>
      ) : (
        <>
          <section className="admin-panel" aria-labelledby="idp-title">
            <h2 id="idp-title">Sign-in provider</h2>
            {q.data.provider ? <Provider api={api} p={q.data.provider} /> : <p className="state empty">None: people sign in with API keys only.</p>}
          </section>
          <ProviderForm key={q.data.provider?.issuer ?? ''} api={api} current={q.data.provider} />
        </>
      )}
    </section>
  );
}

function Provider({ api, p }: { api: HubApi; p: ProviderView }) {
  const qc = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api.send<{ removed: boolean }>('DELETE', '/v1/admin/idp'),
    onSuccess: () => qc.setQueryData(KEY, { provider: null }),
  });
  const [confirming, setConfirming] = useState(false);
  return (
    <div className="idp-card" role="group" aria-label={`Provider ${p.name}`}>
      <dl className="key-facts">
        <dt>Name</dt>
        <dd data-field="name">{p.name}</dd>
        <dt>Issuer</dt>
        <dd data-field="issuer">{p.issuer}</dd>
        <dt>Client id</dt>
        <dd data-field="clientId">{p.clientId}</dd>
        <dt>Client secret</dt>
        <dd data-field="hasClientSecret">{p.hasClientSecret ? 'stored (never shown)' : 'none (public client)'}</dd>
        <dt>Audience</dt>
        <dd data-field="audience">{p.audience}</dd>
        <dt>Scopes</dt>
        <dd data-field="scopes">{p.scopes.join(' ')}</dd>
        <dt>Groups claim</dt>
        <dd data-field="groupsClaim">{p.groupsClaim}</dd>
        <dt>Allowed domains</dt>
        <dd data-field="allowedDomains">{p.allowedDomains.length ? p.allowedDomains.join(', ') : 'any'}</dd>
        <dt>API-key sign-in</dt>
        <dd data-field="apiKeyConsole">{p.apiKeyConsole ? 'still offered' : 'turned off'}</dd>
        <dt>Set by</dt>
        <dd data-field="source">{p.source === 'tenant' ? 'this tenant' : 'the deployment’s settings'}</dd>
      </dl>
      <table className="group-roles">
        <caption>Groups and the role each gives</caption>
        <thead>
          <tr>
            <th scope="col">Group</th>
            <th scope="col">Role</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(p.groupRoles).map(([g, r]) => (
            <tr key={g} data-group={g}>
              <td>{g}</td>
              <td>{r}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {p.source === 'tenant' &&
        (confirming ? (
          <div className="key-actions" role="group" aria-label="Remove the provider?">
            <span>Remove {p.name}? People can no longer sign in with it.</span>
            <button
              type="button"
              className="deny"
              disabled={remove.isPending}
              onClick={() => remove.mutate(undefined, { onSettled: () => setConfirming(false) })}
            >
              Yes, remove it
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </div>
        ) : (
          <div className="key-actions">
            <button type="button" className="deny" onClick={() => setConfirming(true)}>
              Remove provider
            </button>
          </div>
        ))}
      {remove.isError && (
        <p className="state error" role="alert">
          {isNotFound(remove.error) ? 'This tenant has no provider of its own to remove.' : remove.error.message}
        </p>
      )}
    </div>
  );
}

function ProviderForm({ api, current }: { api: HubApi; current: ProviderView | null }) {
  const qc = useQueryClient();
  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) => api.send<{ provider: ProviderView }>('PUT', '/v1/admin/idp', body),
    onSuccess: (data) => qc.setQueryData(KEY, data),
  });
  const [draft, setDraft] = useState<ProviderDraft>(() => (current ? draftOf(current) : EMPTY_DRAFT));
  const [local, setLocal] = useState<string | null>(null);
  const text = (k: Exclude<keyof ProviderDraft, 'apiKeyConsole'>) => ({
    value: draft[k],
    onChange: (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value }),
  });
  return (
    <section className="admin-panel" aria-labelledby="idp-form-title">
      <h2 id="idp-form-title">{current ? 'Change the provider' : 'Add a provider'}</h2>
      <form
        className="admin-form idp-form"
        aria-label="Identity provider"
        onSubmit={(e) => {
          e.preventDefault();
          const built = providerBody(draft);
          setLocal(built.ok ? null : built.message);
          if (built.ok) save.mutate(built.body);
        }}
      >
        <label>
          Name (the sign-in button says “Sign in with …”) <input {...text('name')} maxLength={100} placeholder="Example SSO" />
        </label>
        <label>
          Issuer URL <input type="url" {...text('issuer')} required placeholder="https://login.example.com" />
        </label>
        <label>
          Client id <input {...text('clientId')} required />
        </label>
        <label>
          Client secret {current?.hasClientSecret ? '(empty keeps the stored one)' : '(optional: none for a public client)'}{' '}
          <input type="password" autoComplete="new-password" {...text('clientSecret')} />
        </label>
        <label>
          Audience (optional, default the client id) <input {...text('audience')} />
        </label>
        <label>
          Scopes <input {...text('scopes')} />
        </label>
        <label>
          Groups claim <input {...text('groupsClaim')} />
        </label>
        <label htmlFor="idp-group-roles">Group roles, one “group = role” a line (roles: {ROLES.join(', ')})</label>
        <textarea id="idp-group-roles" className="json" rows={4} spellCheck={false} required {...text('groupRoles')} placeholder="hub-admins = admin" />
        <label>
          Allowed email domains (empty: any) <input {...text('allowedDomains')} placeholder="example.com" />
        </label>
        <label className="check">
          <input type="checkbox" checked={draft.apiKeyConsole} onChange={(e) => setDraft({ ...draft, apiKeyConsole: e.target.checked })} /> Keep offering
          sign-in with an API key
        </label>
        <button type="submit" disabled={save.isPending}>
          {current ? 'Save provider' : 'Add provider'}
        </button>
        {(local !== null || save.isError) && (
          <p className="state error" role="alert">
            {local ?? save.error?.message}
          </p>
        )}
        {save.isSuccess && !save.isPending && (
          <p className="state saved" role="status">
            Saved.
          </p>
        )}
      </form>
    </section>
  );
}
