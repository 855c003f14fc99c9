import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { DomainError } from '@hub/domain';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';
import { SocketLeases, type SocketLease } from './socket-leases';
import { TenantLimitsService } from './tenant-limits';

/** What a client refused for its tenant's open sockets is told to wait: a socket must close first. */
const SOCKETS_RETRY_MS = 5_000;

/**
 * The `openSockets` limit at the WebSocket upgrade, for every protocol that holds a socket
 * (transport, ACP, OpenEnv /ws and /harness): every socket is counted (so a limit set later sees
 * the ones already open), and one over the tenant's limit is refused before it opens.
 */
@Injectable()
export class TenantSockets implements OnModuleDestroy {
  private readonly leases: SocketLeases;
  private readonly log = new Logger('limits');
  private countingFailed = false;

  constructor(
    @Inject(INGRESS_CONFIG) settings: IngressSettings,
    private readonly limits: TenantLimitsService,
  ) {
    this.leases = new SocketLeases({
      redisUrl: settings.redisUrl,
      prefix: settings.queuePrefix,
      leaseMs: settings.socketLeaseMs,
      onError: (e) => this.log.warn(`socket lease not renewed or released (it runs out by itself): ${e.message}`),
    });
  }

  /**
   * The new socket's lease; RATE_LIMITED (with `retryAfterMs`) when the tenant holds its limit.
   * A tenant without a limit is never refused because Redis cannot count (null: not counted).
   */
  async admit(tenantId: string): Promise<SocketLease | null> {
    const { openSockets } = await this.limits.limitsOf(tenantId);
    let admission;
    try {
      admission = await this.leases.acquire(tenantId, openSockets);
    } catch (e) {
      if (openSockets !== null) throw e;
      if (!this.countingFailed) this.log.warn(`open sockets not counted: ${(e as Error).message}`);
      this.countingFailed = true;
      return null;
    }
    this.countingFailed = false;
    if (admission.admitted) return admission.lease;
    throw new DomainError('RATE_LIMITED', `this tenant may hold ${openSockets} WebSockets open and holds ${admission.open}: close one, or retry later`, {
      retryAfterMs: SOCKETS_RETRY_MS,
    });
  }

  /** Counts the socket until it closes. */
  hold(lease: SocketLease | null, socket: { once(event: 'close', listener: () => void): unknown }): void {
    if (lease) this.leases.hold(lease, socket);
  }

  onModuleDestroy(): Promise<void> {
    return this.leases.close();
  }
}
