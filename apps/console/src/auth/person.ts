// Sign-in with the tenant's identity provider (issue 24). The session is an HttpOnly cookie the
// console never sees; what it holds is the CSRF token the hub hands it, sent back in
// `X-Hub-CSRF` on every request (HubApi's auth headers), kept in memory only. The console asks
// `/v1/auth/oidc/session` (public, always 200) whether the browser has a session.

/** Who is signed in with the identity provider. */
export interface SignedInPerson {
  name: string;
  email: string | null;
  role: string;
  csrfToken: string;
}

/** How the console offers sign-in for the tenant the URL names (`?tenant=`), or the deployment's provider. */
export interface SignInOptions {
  oidc: { name: string; tenantId: string } | null;
  apiKeyConsole: boolean;
}

/** The tenant the console's URL names (`/console/?tenant=<id>`), for a hub with a provider per tenant. */
export function tenantInUrl(): string | null {
  return new URLSearchParams(window.location.search).get('tenant');
}

/** The person signed in by the session cookie, or null (no cookie, or it ended: `reason` says why). */
export async function signedInPerson(): Promise<{ person: SignedInPerson | null; reason: string | null }> {
  const res = await fetch('/v1/auth/oidc/session', { headers: { Accept: 'application/json' } });
  if (!res.ok) return { person: null, reason: null };
  const s = (await res.json()) as {
    signedIn: boolean;
    reason?: string | null;
    role?: string;
    csrfToken?: string;
    actor?: { name?: string; email?: string; sub?: string };
  };
  if (!s.signedIn || !s.csrfToken || !s.role) return { person: null, reason: s.reason ?? null };
  return { person: { name: s.actor?.name ?? s.actor?.sub ?? 'you', email: s.actor?.email ?? null, role: s.role, csrfToken: s.csrfToken }, reason: null };
}

export async function signInOptions(tenant: string | null): Promise<SignInOptions> {
  const res = await fetch(`/v1/auth/oidc/options${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ''}`, { headers: { Accept: 'application/json' } });
  return res.ok ? ((await res.json()) as SignInOptions) : { oidc: null, apiKeyConsole: true };
}

/** Where the "Sign in with …" button goes: the hub sends the browser on to the provider. */
export function loginUrl(tenantId: string): string {
  const back = window.location.pathname.startsWith('/console') ? window.location.pathname : '/console/';
  return `/v1/auth/oidc/login?tenant=${encodeURIComponent(tenantId)}&returnTo=${encodeURIComponent(back)}`;
}

/** Ends the session here, then at the provider when it supports that (RP-initiated logout). */
export async function signOutPerson(p: SignedInPerson): Promise<void> {
  const res = await fetch('/v1/auth/oidc/logout', { method: 'POST', headers: { 'X-Hub-CSRF': p.csrfToken, Accept: 'application/json' } });
  const body = res.ok ? ((await res.json()) as { logoutUrl: string | null }) : { logoutUrl: null };
  window.location.assign(body.logoutUrl ?? '/console/');
}
