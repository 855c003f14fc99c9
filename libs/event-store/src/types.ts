import type { PoolClient } from 'pg';
import type { EventMetadata, Recorded } from '@hub/domain';

/** The shape the store needs of an event; it does not know the hub's event union. */
export interface StoredEvent {
  type: string;
  data: unknown;
}

/** An event to append. `eventId` (a UUID) is generated when omitted. */
export type NewEvent<E extends StoredEvent = StoredEvent> = E & {
  metadata: EventMetadata;
  eventId?: string;
};

/**
 * What the writer expects of the stream: its exact version (the stream position of its last
 * event, 0 when empty), `'no_stream'`, `'exists'` (at least one event), or `'any'`.
 */
export type ExpectedVersion = number | 'any' | 'no_stream' | 'exists';

export interface AppendOptions {
  expectedVersion: ExpectedVersion;
  /**
   * Per tenant: a second append with the same key appends nothing and returns the first
   * append's result (`duplicate: true`), whatever stream or events it names.
   */
  idempotencyKey?: string;
  /**
   * Runs inside the append transaction after everything is written, just before COMMIT.
   * For tests and diagnostics (holding a writer open); it must not touch the database.
   */
  onBeforeCommit?: () => Promise<void>;
  /**
   * More writes in the append's transaction, after its events (the allocator must be the
   * transaction's first write): an erasure's deletes commit with its tombstone, or neither does.
   * Throwing rolls the whole append back.
   */
  withinTransaction?: (client: PoolClient) => Promise<void>;
}

export interface AppendResult<E extends StoredEvent = StoredEvent> {
  /** The stream version after the append: pass it as the next `expectedVersion`. */
  nextExpectedVersion: number;
  events: Recorded<E>[];
  /** True when the idempotency key had been used: nothing was appended. */
  duplicate: boolean;
}

export interface ReadStreamOptions {
  /** Return the events after this version (exclusive); 0, the default, reads from the start. */
  fromVersion?: number;
  maxCount?: number;
}

export interface ReadStreamResult<E extends StoredEvent = StoredEvent> {
  /** The stream's current version (0 when it does not exist), even when `maxCount` cut the read. */
  version: number;
  events: Recorded<E>[];
}

export interface ReadAllOptions {
  /** Global position to read after (exclusive); 0 reads from the start. */
  after: number;
  limit: number;
}

export interface EventStoreOptions {
  /** Largest accepted `data` + `metadata`, as UTF-8 JSON bytes, per event. Default 256 KiB. */
  maxEventBytes?: number;
  /**
   * Told of every committed append that stored events (not a repeat of an idempotent one): the
   * tenant and the bytes of `data` + `metadata` it stored, for the tenant's `eventBytesPerDay`.
   * Called after the commit and never awaited; a throw is ignored (a lost count must not undo an
   * append that happened).
   */
  onAppended?: (tenantId: string, bytes: number) => void;
  /**
   * Group commit of appends ready at the same moment (ADR 0030); on by default. `false`: every
   * append is its own statement (what a test of one append's own path wants).
   */
  groupCommit?: { maxInFlight?: number; maxBatch?: number } | false;
}
