import { RPC } from '@hub/protocol-acp';
import { wsError } from '@hub/protocol-openenv';
import { errorFrame } from '@hub/protocol-transport';
import { OPENENV_HARNESS_PATH, OPENENV_WS_PATH } from '../openenv/openenv-paths';

/** Close code of a socket whose API key was revoked (4000-4999 are the application's; 4401 reads as HTTP 401). */
export const KEY_REVOKED_CLOSE_CODE = 4401;
export const KEY_REVOKED_REASON = 'API key revoked';

const MESSAGE = 'the API key of this connection was revoked; reconnect with a valid key';

/**
 * The last frame a socket gets before it is closed for a revoked key, in its own protocol's
 * error shape (keyed by the gateway's path): transport `error` `unauthenticated`; ACP a JSON-RPC
 * error with id null (no request caused it) and ACP's auth code; OpenEnv `/ws` `SESSION_ERROR`;
 * RFC 005 `/harness` an `error` HarnessEvent that is not recoverable.
 */
export function revokedKeyFrame(path: string, now: () => number = Date.now): object {
  switch (path) {
    case '/v1/transport':
      return errorFrame('unauthenticated', MESSAGE);
    case '/v1/acp':
      return { jsonrpc: '2.0', id: null, error: { code: RPC.AUTH_REQUIRED, message: MESSAGE, data: { code: 'UNAUTHENTICATED' } } };
    case OPENENV_WS_PATH:
      return wsError('SESSION_ERROR', MESSAGE);
    case OPENENV_HARNESS_PATH:
      return { type: 'error', timestamp: now() / 1000, data: { message: MESSAGE, code: 'UNAUTHENTICATED', recoverable: false } };
    default:
      return { type: 'error', code: 'unauthenticated', message: MESSAGE };
  }
}
