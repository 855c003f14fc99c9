import { CanActivate, ExecutionContext, Injectable, createParamDecorator } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Credentials, bearerToken, type Principal } from '@hub/auth';
import { DomainError } from '@hub/domain';
import { SessionCookieAuth } from './oidc-session-auth';
import { IS_PUBLIC } from './public.decorator';

type AuthedRequest = Request & { principal?: Principal };

/**
 * Resolves the tenant from `Authorization: Bearer KEY` on every HTTP request (WebSocket
 * upgrades are checked by `AuthenticatedWsAdapter`): an API key, or an identity provider's
 * access token (`Credentials`); without the header, a console session cookie (`SessionCookieAuth`,
 * CSRF-checked). No key, a bad key or a revoked key is a 401 problem+json; a
 * person whose groups map to no role a 403 that says so; the tenant never comes from the body.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly credentials: Credentials,
    private readonly cookies: SessionCookieAuth,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [ctx.getHandler(), ctx.getClass()])) return true;
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const token = bearerToken(req.headers.authorization);
    if (!token) {
      // The console's signed-in person: the session cookie (and, to change anything, its CSRF token).
      const person = await this.cookies.principal(req);
      if (!person) throw new DomainError('UNAUTHENTICATED', 'missing API key: send Authorization: Bearer <key>');
      req.principal = person;
      return true;
    }
    const principal = await this.credentials.verify(token);
    if (!principal) throw new DomainError('UNAUTHENTICATED', 'invalid or revoked API key');
    req.principal = principal;
    return true;
  }
}

export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const p = ctx.switchToHttp().getRequest<AuthedRequest>().principal;
  if (!p) throw new DomainError('UNAUTHENTICATED', 'no principal on request');
  return p;
});
