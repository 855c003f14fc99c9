import { personActorId, type Actor } from '@hub/domain';
import type { Role } from './roles';

/**
 * A person signed in with the tenant's identity provider (OpenID Connect, issue 24): who they are
 * as the provider said (`iss`, `sub`, name, email), and until when this credential holds (the
 * access token's `exp`, or the console session's end). `sessionId` names the console session a
 * cookie belongs to (absent for a bearer access token); an admin's revocation ends it at once.
 */
export interface PersonCredential {
  iss: string;
  sub: string;
  name?: string;
  email?: string;
  /**
   * The person's identity groups as the provider gave them (the access token's groups claim, or
   * the console session's, read at sign-in and at every refresh): what an approval rule's
   * `approvers.groups` is checked against.
   */
  groups: readonly string[];
  /** Epoch milliseconds after which the credential is refused, open sockets included. */
  expiresAt: number;
  sessionId?: string;
}

/**
 * The authenticated caller. The tenant of every command, read and stream comes from here and
 * never from a request body. A caller is an API key, or a person (`person` set): then `keyPrefix`
 * is the person's id (`<iss>#<sub>`: what owns the sessions they open), `keyName` their name, and
 * `keyId` names the credential (`person:` and the session or the person), never an `api_keys` row.
 */
export interface Principal {
  tenantId: string;
  keyId: string;
  keyPrefix: string;
  keyName: string;
  role: Role;
  person?: PersonCredential;
}

export function actorOf(p: Principal): Actor {
  if (p.person) {
    const { iss, sub, name, email, groups } = p.person;
    return {
      type: 'person',
      id: personActorId(iss, sub),
      name: name ?? email ?? sub,
      role: p.role,
      iss,
      sub,
      ...(email === undefined ? {} : { email }),
      groups: [...groups],
    };
  }
  return { type: 'api_key', id: p.keyPrefix, name: p.keyName, role: p.role };
}

/** A principal of a person: the id and names a key's principal would carry, from the person. */
export function personPrincipal(tenantId: string, role: Role, person: PersonCredential): Principal {
  const id = personActorId(person.iss, person.sub);
  return { tenantId, keyId: `person:${person.sessionId ?? id}`, keyPrefix: id, keyName: person.name ?? person.email ?? person.sub, role, person };
}
