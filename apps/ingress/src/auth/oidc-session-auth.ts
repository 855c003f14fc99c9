import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ConsoleSignIn, PersonSessions, personPrincipal, type PersonSession, type Principal } from '@hub/auth';
import { DomainError } from '@hub/domain';
import { CSRF_HEADER, SESSION_COOKIE, cookieOf } from './oidc-cookies';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A person's principal from their console session. */
export function sessionPrincipal(s: PersonSession): Principal {
  return personPrincipal(s.tenantId, s.role, {
    iss: s.iss,
    sub: s.sub,
    ...(s.name === null ? {} : { name: s.name }),
    ...(s.email === null ? {} : { email: s.email }),
    groups: s.groups,
    expiresAt: s.expiresAt.getTime(),
    sessionId: s.id,
  });
}

function sameToken(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * A request authenticated by the console's session cookie (no Authorization header): the session
 * must exist, match its secret and not be revoked (read at every request, so an admin's
 * revocation holds at the next one); one whose time is up is refreshed at the provider, its role
 * read again. A state-changing request must also carry the session's CSRF token in `X-Hub-CSRF`
 * (the console reads it from `/v1/auth/me`; another site can neither read it nor set the header).
 */
@Injectable()
export class SessionCookieAuth {
  constructor(
    private readonly sessions: PersonSessions,
    private readonly signIn: ConsoleSignIn,
  ) {}

  /** The session of a request with the cookie, or undefined when it has none. */
  async session(req: Pick<IncomingMessage, 'headers'>): Promise<PersonSession | undefined> {
    const cookie = cookieOf(req, SESSION_COOKIE);
    if (cookie === undefined) return undefined;
    const found = await this.sessions.find(cookie);
    if (found.state === 'none') throw new DomainError('UNAUTHENTICATED', 'your console session has ended or was revoked: sign in again');
    if (found.state === 'live') return found.session;
    const refreshed = await this.signIn.refresh(found.session);
    if ('refused' in refreshed)
      throw new DomainError(/map to no role|only people with an email/.test(refreshed.refused) ? 'FORBIDDEN' : 'UNAUTHENTICATED', refreshed.refused);
    return refreshed.session;
  }

  /** The principal of a cookie-authenticated request, CSRF checked; undefined without the cookie. */
  async principal(req: Request): Promise<Principal | undefined> {
    const s = await this.session(req);
    if (!s) return undefined;
    if (!SAFE_METHODS.has(req.method) && !sameToken(req.header(CSRF_HEADER), s.csrfToken)) {
      throw new DomainError(
        'FORBIDDEN',
        `a request signed in by the session cookie that changes something must carry the CSRF token (header ${CSRF_HEADER}, from GET /v1/auth/me)`,
      );
    }
    return sessionPrincipal(s);
  }

  /**
   * The principal of a WebSocket upgrade carrying the session cookie (the console's live session
   * view). A browser sends cookies on a cross-site WebSocket too and no CSRF header can ride on
   * an upgrade, so the upgrade's `Origin` must be this hub's own host; undefined without the cookie.
   */
  async upgradePrincipal(req: Pick<IncomingMessage, 'headers'>): Promise<Principal | undefined> {
    if (cookieOf(req, SESSION_COOKIE) === undefined) return undefined;
    const origin = req.headers.origin;
    let sameHost = false;
    try {
      sameHost = origin !== undefined && new URL(origin).host === req.headers.host;
    } catch {
      sameHost = false;
    }
    if (!sameHost) throw new DomainError('FORBIDDEN', "a WebSocket signed in by the session cookie must come from the hub's own pages (Origin)");
    const s = await this.session(req);
    return s && sessionPrincipal(s);
  }
}
