import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';

/** What the CLI writes on a tenant's admin stream: the operator at the console, over `cli`. */
const CLI_ACTOR = { type: 'system' as const, id: 'cli', name: userInfo().username };

/** The metadata of one admin event the CLI records (apart from keys.ts, so `tenant limits` loads no auth library). */
export function cliAdminMetadata() {
  return { correlationId: randomUUID(), actor: CLI_ACTOR, protocol: 'cli' as const };
}
