import { DomainError, type EventMetadata, type HubEvent, type Recorded } from '@hub/domain';

/**
 * An in-memory event log with the event store's append semantics (expected version,
 * idempotency key, global positions), for unit tests of code that reads and appends through
 * the `TurnLog` / `CommandLog` ports. The real store's own tests cover Postgres.
 */
export class InMemoryEventLog {
  private readonly streams = new Map<string, Recorded<HubEvent>[]>();
  private readonly idempotent = new Map<string, Recorded<HubEvent>[]>();
  private position = 0;
  /** Called before each append commits; a test can inject a concurrent writer here. */
  beforeAppend?: (tenantId: string, streamId: string) => Promise<void> | void;

  private key(tenantId: string, streamId: string): string {
    return `${tenantId}/${streamId}`;
  }

  all(tenantId: string, streamId: string): Recorded<HubEvent>[] {
    return [...(this.streams.get(this.key(tenantId, streamId)) ?? [])];
  }

  async readStream(tenantId: string, streamId: string, opts: { fromVersion?: number } = {}): Promise<{ version: number; events: Recorded<HubEvent>[] }> {
    const events = this.all(tenantId, streamId);
    return { version: events.length, events: events.filter((e) => e.streamPosition > (opts.fromVersion ?? 0)) };
  }

  async append(
    tenantId: string,
    streamId: string,
    events: { type: string; data: unknown; metadata: EventMetadata }[],
    opts: { expectedVersion: number; idempotencyKey?: string },
  ): Promise<{ nextExpectedVersion: number; events: Recorded<HubEvent>[]; duplicate: boolean }> {
    const k = this.key(tenantId, streamId);
    if (opts.idempotencyKey && this.idempotent.has(`${tenantId}/${opts.idempotencyKey}`)) {
      const first = this.idempotent.get(`${tenantId}/${opts.idempotencyKey}`) ?? [];
      return { nextExpectedVersion: this.all(tenantId, streamId).length, events: first, duplicate: true };
    }
    await this.beforeAppend?.(tenantId, streamId);
    const current = this.streams.get(k) ?? [];
    if (current.length !== opts.expectedVersion) {
      throw new DomainError('STREAM_VERSION_CONFLICT', `expected ${opts.expectedVersion}, stream is at ${current.length}`, {
        expected: opts.expectedVersion,
        actual: current.length,
      });
    }
    const recorded = events.map((e, i) => ({
      type: e.type,
      data: e.data,
      metadata: e.metadata,
      eventId: `${k}#${current.length + i + 1}`,
      tenantId,
      streamId,
      streamPosition: current.length + i + 1,
      globalPosition: ++this.position,
      createdAt: new Date(0).toISOString(),
    })) as Recorded<HubEvent>[];
    this.streams.set(k, [...current, ...recorded]);
    if (opts.idempotencyKey) this.idempotent.set(`${tenantId}/${opts.idempotencyKey}`, recorded);
    return { nextExpectedVersion: current.length + recorded.length, events: recorded, duplicate: false };
  }
}
