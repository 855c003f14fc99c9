import { z } from 'zod';

/**
 * Who caused something: an API key of a tenant, a worker, the system, or an approval link (its
 * `id` is `<endpoint id>/<message id>`: the webhook delivery that carried it).
 */
export const Actor = z.object({
  type: z.enum(['api_key', 'worker', 'system', 'approval_link']),
  id: z.string(),
  name: z.string().optional(),
  /** The API key's role when the actor is a key (admin, operator, approver, viewer, client). */
  role: z.string().optional(),
});
export type Actor = z.infer<typeof Actor>;

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
