import type { Recorded } from '@hub/domain';

/**
 * Who opened a session, from the event that opened it (its first event, or for a session made by
 * ACP `session/new` its creation fact): the API key's prefix or the person's id; null when something other than a
 * key or a person did; undefined when there is no such event (the session is not opened yet).
 */
export function openerOf(first: { metadata: Pick<Recorded['metadata'], 'actor'> } | undefined): string | null | undefined {
  if (!first) return undefined;
  const actor = first.metadata.actor;
  return actor?.type === 'api_key' || actor?.type === 'person' ? actor.id : null;
}
