import { randomUUID } from 'node:crypto';
import { actorOf, type Principal } from '@hub/auth';
import { ADMIN_STREAM_ID, type Actor, type AdminEvent } from '@hub/domain';
import type { EventStore } from '@hub/event-store';

/** Appends administration facts to the tenant's admin stream, naming who did it (never a secret). */
export async function recordAdmin(
  store: EventStore,
  tenantId: string,
  events: AdminEvent[],
  by: Principal | Actor,
  correlationId: string = randomUUID(),
): Promise<void> {
  const actor = 'keyId' in by ? actorOf(by) : by;
  const metadata = { correlationId, actor, protocol: 'internal' as const };
  await store.append(
    tenantId,
    ADMIN_STREAM_ID,
    events.map((e) => ({ ...e, metadata })),
    { expectedVersion: 'any' },
  );
}
