import type { IncomingMessage } from 'node:http';

/** The console session's cookie: `<id>.<secret>`, HttpOnly, SameSite=Strict, for the whole hub. */
export const SESSION_COOKIE = 'hub_session';
/** The sign-in in progress (state, nonce, PKCE verifier), HttpOnly, for the callback's path only. */
export const FLOW_COOKIE = 'hub_oidc_flow';
export const FLOW_PATH = '/v1/auth/oidc';
/** The header a cookie-authenticated state-changing request carries its CSRF proof in. */
export const CSRF_HEADER = 'x-hub-csrf';
/** The longest a console session is refreshed for (the cookie's own lifetime). */
export const MAX_SESSION_SECONDS = 12 * 3600;

/** One cookie of a request's `Cookie` header. */
export function cookieOf(req: Pick<IncomingMessage, 'headers'>, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return undefined;
}

/** Whether the request came over TLS (directly, or as the proxy in front says): then cookies are `Secure`. */
export function overTls(req: Pick<IncomingMessage, 'headers'> & { protocol?: string; secure?: boolean }): boolean {
  return (
    req.secure === true ||
    req.protocol === 'https' ||
    String(req.headers['x-forwarded-proto'] ?? '')
      .split(',')[0]
      ?.trim() === 'https'
  );
}

/** A `Set-Cookie` value: HttpOnly always, Secure over TLS; `maxAgeS` 0 deletes it. */
export function setCookie(name: string, value: string, o: { path: string; maxAgeS: number; sameSite: 'Strict' | 'Lax'; secure: boolean }): string {
  return [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${o.path}`,
    `Max-Age=${o.maxAgeS}`,
    'HttpOnly',
    `SameSite=${o.sameSite}`,
    ...(o.secure ? ['Secure'] : []),
  ].join('; ');
}

/** The hub's own origin as the browser sees it (for the redirect URI the provider sends people back to). */
export function originOf(req: Pick<IncomingMessage, 'headers'> & { protocol?: string; secure?: boolean }): string {
  const host = String(req.headers['x-forwarded-host'] ?? req.headers.host ?? 'localhost')
    .split(',')[0]
    .trim();
  return `${overTls(req) ? 'https' : 'http'}://${host}`;
}
