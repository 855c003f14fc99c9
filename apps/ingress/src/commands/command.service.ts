import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { DOMAIN_ERROR_CODES, DomainError } from '@hub/domain';
import type { CommandMetadata, HubCommand, Protocol } from '@hub/domain';
import { actorOf, KeyLiveness, type Principal } from '@hub/auth';
import { HubQueues } from '@hub/queue';
import { currentTraceparent } from '@hub/telemetry';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';

/** What the worker answers for a command (see apps/worker CommandHandler). */
export const CommandOutcome = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    events: z.array(z.object({ type: z.string(), globalPosition: z.number() })),
    duplicate: z.boolean(),
  }),
  z.object({ ok: z.literal(false), code: z.enum(DOMAIN_ERROR_CODES), message: z.string() }),
]);
export type CommandOutcome = z.infer<typeof CommandOutcome>;

export interface DispatchContext {
  protocol: Protocol;
  correlationId: string;
  /** The idempotency key: a repeat with the same id yields the first outcome. */
  commandId: string;
  extra?: Record<string, unknown>;
}

/**
 * The one way a protocol edge hands a command to the hub: onto the command queue, then wait
 * for the worker's decision. The tenant is the principal's, never the request's.
 */
@Injectable()
export class CommandService {
  constructor(
    private readonly queues: HubQueues,
    @Inject(INGRESS_CONFIG) private readonly config: IngressSettings,
    private readonly liveness: KeyLiveness,
  ) {}

  async dispatch(command: HubCommand, principal: Principal, ctx: DispatchContext): Promise<CommandOutcome> {
    // A socket authenticated once, at its upgrade: its key may have been revoked since. One
    // indexed read per command, so nothing is appended for a revoked key, on any protocol.
    if (!(await this.liveness.isLive(principal.keyId))) throw new DomainError('UNAUTHENTICATED', 'the API key was revoked');
    const meta: CommandMetadata = {
      ...ctx.extra,
      commandId: ctx.commandId,
      tenantId: principal.tenantId,
      now: new Date().toISOString(),
      actor: actorOf(principal),
      protocol: ctx.protocol,
      correlationId: ctx.correlationId,
      ...currentTraceparent(),
    };
    let raw: unknown;
    try {
      raw = await this.queues.enqueueAndWait('command', { command, meta }, this.config.commandTimeoutMs);
    } catch (e) {
      // BullMQ rejects the wait both when time runs out and when the job failed for good; only
      // the first is a timeout (and may still be decided later), the second is the worker's error.
      const message = e instanceof Error ? e.message : String(e);
      if (/timed out before finishing/.test(message)) {
        throw new DomainError('TIMEOUT', `command not decided within ${this.config.commandTimeoutMs} ms`);
      }
      throw new DomainError('INTERNAL', `command failed: ${message}`);
    }
    return CommandOutcome.parse(raw);
  }
}
