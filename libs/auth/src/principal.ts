import type { Actor } from '@hub/domain';
import type { Role } from './roles';

/**
 * The authenticated caller. The tenant of every command, read and stream comes from here and
 * never from a request body.
 */
export interface Principal {
  tenantId: string;
  keyId: string;
  keyPrefix: string;
  keyName: string;
  role: Role;
}

export function actorOf(p: Principal): Actor {
  return { type: 'api_key', id: p.keyPrefix, name: p.keyName, role: p.role };
}
