import type { INestApplicationContext } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { IncomingMessage } from 'node:http';
import { ApiKeyService, bearerToken, type Principal } from '@hub/auth';

export type UpgradeRequest = IncomingMessage & { principal?: Principal };

interface VerifyInfo {
  req: UpgradeRequest;
}
type VerifyDone = (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void;

/**
 * The ws adapter with the hub's two edge rules applied to every WebSocket: the upgrade is
 * authenticated (401 problem+json before any frame), and a frame over the size limit closes
 * the socket with 1009 ("message too big").
 */
export class AuthenticatedWsAdapter extends WsAdapter {
  constructor(
    app: INestApplicationContext,
    private readonly keys: ApiKeyService,
    private readonly maxFrameBytes: number,
  ) {
    super(app);
  }

  override create(port: number, options: Record<string, unknown> = {}) {
    return super.create(port, {
      ...options,
      maxPayload: this.maxFrameBytes,
      verifyClient: (info: VerifyInfo, done: VerifyDone) => {
        void this.verify(info.req).then(
          (p) => done(p !== null, 401, p ? undefined : problem401(), { 'Content-Type': 'application/problem+json' }),
          () => done(false, 503, problem('UNAVAILABLE', 503, 'cannot check the API key now')),
        );
      },
    });
  }

  private async verify(req: UpgradeRequest): Promise<Principal | null> {
    const principal = await this.keys.verify(bearerToken(req.headers.authorization));
    if (principal) req.principal = principal;
    return principal;
  }
}

function problem(code: string, status: number, detail: string): string {
  return JSON.stringify({ type: `urn:hub:error:${code.toLowerCase()}`, title: code, status, detail, code });
}

function problem401(): string {
  return problem('UNAUTHENTICATED', 401, 'missing, invalid or revoked API key: send Authorization: Bearer <key>');
}
