// The part of oidc-provider 9 (which ships no types) the test provider uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  interface ClientView {
    clientId: string;
    grantTypeAllowed(type: string): boolean;
  }
  interface TokenView {
    accountId?: string;
  }
  export interface Configuration {
    clients: Record<string, unknown>[];
    findAccount: (ctx: unknown, sub: string) => { accountId: string; claims: () => Record<string, unknown> } | undefined;
    claims: Record<string, string[]>;
    scopes: string[];
    pkce: { required: () => boolean };
    conformIdTokenClaims: boolean;
    issueRefreshToken: (ctx: unknown, client: ClientView) => boolean;
    ttl: Record<string, number | (() => number)>;
    features: Record<string, unknown> & {
      resourceIndicators?: {
        enabled: boolean;
        defaultResource: () => string;
        useGrantedResource: () => boolean;
        getResourceServerInfo: (ctx: unknown, resource: string) => Record<string, unknown>;
      };
    };
    extraTokenClaims: (ctx: unknown, token: TokenView) => Record<string, unknown>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
