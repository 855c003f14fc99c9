import { Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ConsoleSignIn, PersonSessions, actorOf, type Principal, type SignInFlow } from '@hub/auth';
import { isDomainError } from '@hub/domain';
import { CurrentPrincipal } from './api-key.guard';
import { FLOW_COOKIE, FLOW_PATH, MAX_SESSION_SECONDS, SESSION_COOKIE, cookieOf, originOf, overTls, setCookie } from './oidc-cookies';
import { SessionCookieAuth, sessionPrincipal } from './oidc-session-auth';
import { Public } from './public.decorator';

const FLOW_SECONDS = 600;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page a person sees when the hub will not sign them in: what happened, and what to do. */
function refusalPage(status: number, reason: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in refused · Harness Hub</title><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem">
<main><h1>Sign-in refused</h1><p role="alert" id="reason">${escapeHtml(reason)}</p><p>HTTP ${status}. <a href="/console/">Back to the console</a></p></main></body></html>`;
}

function flowOf(req: Request): SignInFlow | undefined {
  const raw = cookieOf(req, FLOW_COOKIE);
  if (!raw) return undefined;
  try {
    const f = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<SignInFlow>;
    return typeof f.tenantId === 'string' &&
      typeof f.state === 'string' &&
      typeof f.nonce === 'string' &&
      typeof f.verifier === 'string' &&
      typeof f.returnTo === 'string'
      ? (f as SignInFlow)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Console sign-in with the tenant's identity provider (issue 24): `login` sends the browser to
 * the provider (code flow, PKCE, state, nonce; what the callback needs rides in an HttpOnly
 * cookie for this path only), `callback` makes the session cookie (or shows why not), `logout`
 * ends the session here and answers where to end it at the provider; `/v1/auth/me` says who is
 * signed in and hands the console its CSRF token.
 */
@ApiTags('auth')
@Controller()
export class OidcAuthController {
  constructor(
    private readonly signIn: ConsoleSignIn,
    private readonly sessions: PersonSessions,
    private readonly cookies: SessionCookieAuth,
  ) {}

  @ApiOperation({ summary: 'How the console offers sign-in for a tenant (public): {oidc: {name} | null, apiKeyConsole}' })
  @ApiQuery({ name: 'tenant', required: false, description: "The tenant's id; absent: the deployment-wide provider's" })
  @Public()
  @Get('v1/auth/oidc/options')
  async options(@Query('tenant') tenant?: string) {
    const p = await this.signIn.providerOf(tenant || undefined).catch(() => null);
    return { oidc: p && { name: p.name, tenantId: p.tenantId }, apiKeyConsole: p?.apiKeyConsole ?? true };
  }

  @ApiOperation({ summary: "Start signing in with the tenant's identity provider (public): redirects to the provider" })
  @ApiQuery({ name: 'tenant', required: false })
  @ApiQuery({ name: 'returnTo', required: false, description: 'A /console path to come back to' })
  @Public()
  @Get('v1/auth/oidc/login')
  async login(@Req() req: Request, @Res() res: Response, @Query('tenant') tenant?: string, @Query('returnTo') returnTo?: string) {
    try {
      const { url, flow } = await this.signIn.start(tenant || undefined, `${originOf(req)}${FLOW_PATH}/callback`, returnTo);
      // Lax, not Strict: the provider's redirect back to the callback is a cross-site navigation.
      res.setHeader(
        'Set-Cookie',
        setCookie(FLOW_COOKIE, Buffer.from(JSON.stringify(flow)).toString('base64url'), {
          path: FLOW_PATH,
          maxAgeS: FLOW_SECONDS,
          sameSite: 'Lax',
          secure: overTls(req),
        }),
      );
      res.redirect(302, url);
    } catch (e) {
      res
        .status(400)
        .type('html')
        .send(refusalPage(400, isDomainError(e) ? e.message : `cannot reach the identity provider: ${(e as Error).message}`));
    }
  }

  @ApiOperation({ summary: 'Where the identity provider sends the browser back (public): makes the session cookie, or shows why not' })
  @Public()
  @Get('v1/auth/oidc/callback')
  async callback(@Req() req: Request, @Res() res: Response) {
    const flow = flowOf(req);
    const secure = overTls(req);
    const clearFlow = setCookie(FLOW_COOKIE, '', { path: FLOW_PATH, maxAgeS: 0, sameSite: 'Lax', secure });
    if (!flow)
      return void res
        .status(400)
        .setHeader('Set-Cookie', clearFlow)
        .type('html')
        .send(refusalPage(400, 'this sign-in was not started here, or took longer than 10 minutes: start again'));
    try {
      const origin = originOf(req);
      const { cookie } = await this.signIn.finish(new URL(req.originalUrl, origin), flow, `${origin}${FLOW_PATH}/callback`);
      res.setHeader('Set-Cookie', [clearFlow, setCookie(SESSION_COOKIE, cookie, { path: '/', maxAgeS: MAX_SESSION_SECONDS, sameSite: 'Strict', secure })]);
      res.redirect(302, flow.returnTo);
    } catch (e) {
      const status = isDomainError(e) && e.code === 'FORBIDDEN' ? 403 : 401;
      res
        .status(status)
        .setHeader('Set-Cookie', clearFlow)
        .type('html')
        .send(refusalPage(status, isDomainError(e) ? e.message : `sign-in failed: ${(e as Error).message}`));
    }
  }

  @ApiOperation({ summary: 'Sign out of the console session (cookie and CSRF token): {logoutUrl} ends it at the provider too, when it supports that' })
  @Post('v1/auth/oidc/logout')
  @HttpCode(200)
  async logout(@CurrentPrincipal() p: Principal, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const session = await this.cookies.session(req);
    res.setHeader('Set-Cookie', setCookie(SESSION_COOKIE, '', { path: '/', maxAgeS: 0, sameSite: 'Strict', secure: overTls(req) }));
    if (!session || session.id !== p.person?.sessionId) return { logoutUrl: null };
    await this.sessions.end(session);
    const logoutUrl = await this.signIn.logoutUrl(session, `${originOf(req)}/console/`).catch(() => null);
    return { logoutUrl };
  }

  @ApiOperation({
    summary: "The browser's console session, if it has one (public, always 200): {signedIn, role, actor, csrfToken} or {signedIn: false, reason}",
  })
  @Public()
  @Get('v1/auth/oidc/session')
  async session(@Req() req: Request) {
    try {
      const s = await this.cookies.session(req);
      if (!s) return { signedIn: false, reason: null };
      const p = sessionPrincipal(s);
      return { signedIn: true, tenantId: p.tenantId, role: p.role, actor: actorOf(p), csrfToken: s.csrfToken };
    } catch (e) {
      if (isDomainError(e)) return { signedIn: false, reason: e.message };
      throw e;
    }
  }

  @ApiOperation({ summary: 'Who is signed in: the actor (a key or a person), the role, and for a console session its CSRF token' })
  @Get('v1/auth/me')
  async me(@CurrentPrincipal() p: Principal, @Req() req: Request) {
    const session = p.person?.sessionId ? await this.cookies.session(req) : undefined;
    return {
      tenantId: p.tenantId,
      role: p.role,
      actor: actorOf(p),
      csrfToken: session?.csrfToken ?? null,
      expiresAt: p.person ? new Date(p.person.expiresAt).toISOString() : null,
    };
  }
}
