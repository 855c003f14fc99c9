import { z } from 'zod';

/**
 * Who caused something: an API key of a tenant, a person signed in with the tenant's identity
 * provider (OpenID Connect, issue 24: `id` is `<iss>#<sub>`, with `iss`, `sub` and the name and
 * email the provider gave), a worker, the system, or an approval link (its `id` is
 * `<endpoint id>/<message id>`: the webhook delivery that carried it).
 */
export const Actor = z.object({
  type: z.enum(['api_key', 'person', 'worker', 'system', 'approval_link']),
  id: z.string(),
  name: z.string().optional(),
  /** The role the actor acted in, for a key or a person (admin, operator, approver, viewer, client). */
  role: z.string().optional(),
  /** A person's issuer and subject (the provider's `iss` and `sub` claims). */
  iss: z.string().optional(),
  sub: z.string().optional(),
  /** A person's email as the provider gave it. */
  email: z.string().optional(),
  /**
   * A person's identity groups as the provider gave them at sign-in (or at the console session's
   * last refresh): what an approval rule's `approvers.groups` is checked against. Kept on every
   * event's metadata, so the log shows which groups let a person approve (audit). Keys have none.
   */
  groups: z.array(z.string()).optional(),
});
export type Actor = z.infer<typeof Actor>;

/** A person's id in an actor: issuer and subject together name one person whatever their name or email. */
export function personActorId(iss: string, sub: string): string {
  return `${iss}#${sub}`;
}

/**
 * Who an actor is, for counting distinct people or keys (quorum, "requester may not approve"):
 * `person:<iss>#<sub>` for a person, `api_key:<prefix>` for a key, `<type>:<id>` otherwise. Two
 * actors are the same one exactly when this is equal.
 */
export function actorIdentity(actor: Pick<Actor, 'type' | 'id'>): string {
  return `${actor.type}:${actor.id}`;
}

/** The wire a command came in on; kept on every event it causes. */
export const Protocol = z.enum(['transport', 'openharness', 'zene', 'openenv', 'acp', 'a2a', 'ag-ui', 'internal', 'cli']);
export type Protocol = z.infer<typeof Protocol>;

/**
 * Metadata carried by every event (and every command): correlation and causation ids, the W3C
 * trace context, the actor and the protocol. Extra keys (for example a protocol's
 * `extensions`) are kept as they are.
 */
export const EventMetadata = z
  .object({
    correlationId: z.string().min(1),
    causationId: z.string().optional(),
    traceparent: z.string().optional(),
    tracestate: z.string().optional(),
    actor: Actor.optional(),
    protocol: Protocol.optional(),
  })
  .catchall(z.unknown());
export type EventMetadata = z.infer<typeof EventMetadata>;

/**
 * Everything a decider needs from the outside world, passed in so that deciders stay pure:
 * the command id (its idempotency key), the time, and the tenant of the authenticated caller.
 */
export const CommandMetadata = EventMetadata.extend({
  commandId: z.string().min(1),
  tenantId: z.string().uuid(),
  now: z.string(),
  actor: Actor,
  protocol: Protocol,
});
export type CommandMetadata = z.infer<typeof CommandMetadata>;
