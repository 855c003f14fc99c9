import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError, HubApi } from './api/client';
import { clearKey, keyPrefix, storedKey, storeKey } from './auth/key';
import { SignIn } from './auth/SignIn';
import { signedInPerson, signOutPerson, type SignedInPerson } from './auth/person';
import { InboxScreen } from './inbox/InboxScreen';
import { useApprovalFeed } from './inbox/useApprovalFeed';
import { ExplorerScreen } from './explorer/ExplorerScreen';
import { SessionScreen } from './sessions/SessionScreen';
import { SessionsScreen } from './sessions/SessionsScreen';
import { SchedulesScreen } from './schedules/SchedulesScreen';
import { WebhooksScreen } from './webhooks/WebhooksScreen';
import { AdminScreen } from './admin/AdminScreen';
import { AdminNav } from './admin/AdminNav';
import { PolicyScreen } from './policy/PolicyScreen';
import { IdpScreen } from './idp/IdpScreen';
import { UsageScreen } from './usage/UsageScreen';
import { TurnScreen } from './timeline/TurnScreen';
import { useRoute } from './ui/router';

export function App() {
  const [key, setKey] = useState<string | null>(() => storedKey());
  const [message, setMessage] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const signOut = useCallback(
    (why: string | null = null) => {
      clearKey();
      queryClient.clear();
      setMessage(why);
      setKey(null);
    },
    [queryClient],
  );
  // A person signed in with the identity provider has a session cookie instead of a key: asked once.
  const [person, setPerson] = useState<SignedInPerson | null | undefined>(() => (storedKey() ? null : undefined));
  useEffect(() => {
    if (key || person !== undefined) return;
    void signedInPerson().then(
      (r) => {
        setPerson(r.person);
        if (r.reason) setMessage(r.reason);
      },
      () => setPerson(null),
    );
  }, [key, person]);
  if (!key && person === undefined) return null;
  if (!key && person) return <SignedIn apiKey="" person={person} onSignOut={() => void signOutPerson(person)} />;
  if (!key) {
    return (
      <SignIn
        message={message}
        onSignedIn={(k) => {
          storeKey(k);
          setMessage(null);
          setKey(k);
        }}
      />
    );
  }
  return <SignedIn apiKey={key} onSignOut={signOut} />;
}

function SignedIn({ apiKey, onSignOut, person }: { apiKey: string; onSignOut: (why?: string | null) => void; person?: SignedInPerson }) {
  const api = useMemo(() => (person ? HubApi.forPerson(person.csrfToken) : new HubApi(apiKey)), [apiKey, person]);
  const lost = useCallback(() => onSignOut('The API key stopped working (revoked or expired). Sign in again.'), [onSignOut]);
  const feed = useApprovalFeed(api, lost);
  useSignOutOnRefusal(lost);
  const route = useRoute();
  const explorer = /^\/sessions\/([^/]+)\/events$/.exec(route);
  const session = /^\/sessions\/([^/]+)\/?$/.exec(route);
  const turn = /^\/sessions\/([^/]+)\/turns\/([^/]+)$/.exec(route);
  return (
    <div className="app">
      <header className="top">
        <nav aria-label="Main">
          <a href="/console/" aria-current={route === '/' ? 'page' : undefined}>
            Inbox <span className="count">{feed.pending.length}</span>
          </a>
          <a href="/console/sessions" aria-current={route.startsWith('/sessions') ? 'page' : undefined}>
            Sessions
          </a>
          <a href="/console/schedules" aria-current={route.startsWith('/schedules') ? 'page' : undefined}>
            Schedules
          </a>
          <a href="/console/webhooks" aria-current={route.startsWith('/webhooks') ? 'page' : undefined}>
            Webhooks
          </a>
          <a href="/console/usage" aria-current={route.startsWith('/usage') ? 'page' : undefined}>
            Usage
          </a>
          <a href="/console/admin" aria-current={route.startsWith('/admin') ? 'page' : undefined}>
            Admin
          </a>
        </nav>
        <span className="who muted">{person ? `${person.name} (${person.role})` : keyPrefix(apiKey)}</span>
        <button type="button" className="signout" onClick={() => onSignOut(null)}>
          Sign out
        </button>
      </header>
      <main>
        {explorer ? (
          <ExplorerScreen key={explorer[1]} api={api} sessionId={decodeURIComponent(explorer[1])} />
        ) : turn ? (
          <TurnScreen
            key={route}
            api={api}
            sessionId={decodeURIComponent(turn[1])}
            turnId={decodeURIComponent(turn[2])}
            after={Number(new URLSearchParams(window.location.search).get('after')) || 0}
          />
        ) : session ? (
          <SessionScreen api={api} sessionId={decodeURIComponent(session[1])} />
        ) : route.startsWith('/schedules') ? (
          <SchedulesScreen api={api} />
        ) : route.startsWith('/webhooks') ? (
          <WebhooksScreen api={api} />
        ) : route.startsWith('/usage') ? (
          <UsageScreen api={api} />
        ) : route.startsWith('/admin') ? (
          <>
            <AdminNav route={route} />
            {route.startsWith('/admin/policy') ? (
              <PolicyScreen api={api} />
            ) : route.startsWith('/admin/idp') ? (
              <IdpScreen api={api} />
            ) : (
              <AdminScreen api={api} />
            )}
          </>
        ) : route.startsWith('/sessions') ? (
          <SessionsScreen api={api} onUnauthenticated={lost} />
        ) : (
          <InboxScreen api={api} feed={feed} />
        )}
      </main>
    </div>
  );
}

/**
 * Any request the hub refuses with 401 (the key was revoked or expired while the tab was open)
 * signs the tab out: a screen must not stay up showing "could not load" with a dead key.
 */
function useSignOutOnRefusal(lost: () => void): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const refused = (e: unknown) => e instanceof ApiError && e.status === 401;
    // Signing out clears the cache: not from inside the cache's own notification.
    const check = (ev: { type: string; action?: { type: string; error?: unknown } }) => {
      if (ev.type === 'updated' && ev.action?.type === 'error' && refused(ev.action.error)) queueMicrotask(lost);
    };
    const unsubscribe = [queryClient.getQueryCache().subscribe(check), queryClient.getMutationCache().subscribe(check)];
    return () => unsubscribe.forEach((u) => u());
  }, [queryClient, lost]);
}
