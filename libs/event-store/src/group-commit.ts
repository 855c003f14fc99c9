import { DomainError } from '@hub/domain';
import { DatabaseError, type Pool } from 'pg';
import type { AppendRequest } from './append';
import { readIdempotentEvents, recordedEvents, translateInsertError } from './append';
import { appendInOneStatement, expectedCode } from './append-function';
import { asTenant } from './scope';
import type { AppendResult, StoredEvent } from './types';

export interface GroupCommitOptions {
  /**
   * Statements (batches) in flight at once. While they are, appends that arrive wait and go
   * together in the next one: alone, an append goes at once; in a crowd, one commit carries
   * many. Default 1: with two in flight a crowd's batches stayed small (a commit per one or two
   * appends) and Postgres spent 14-15 ms of CPU per streaming turn at 300 in flight; with one,
   * 8-9 ms (two runs each, tools/bench/streaming.ts), for a wait of at most one statement (a few
   * ms) before an append's own (ADR 0030).
   */
  maxInFlight?: number;
  /** Most appends one statement carries (default 256). */
  maxBatch?: number;
}

interface Waiting {
  req: AppendRequest;
  resolve(result: AppendResult<StoredEvent>): void;
  reject(error: unknown): void;
}

interface BatchRow {
  item: number;
  status: 'ok' | 'duplicate' | 'conflict';
  first_global: string;
  version_before: number;
  created_at: Date | null;
}

/**
 * Group commit (ADR 0030): appends that are ready while earlier ones are being committed go to
 * Postgres together, as one `hub_append_batch` statement (one transaction, one WAL flush, one
 * NOTIFY) for any number of streams and tenants, each item keeping its own expected version,
 * idempotency key, hash chain and tenant. It is self-clocking: no timer and no added wait, a
 * batch is simply whatever queued up while the previous statements ran, so an append alone costs
 * what it did and a crowd costs a commit per batch instead of a commit per append.
 *
 * A batch that fails as a whole with an error from Postgres (it rolled back: a duplicate event
 * id, a deadlock) is retried append by append, so each caller gets its own outcome. A batch whose
 * connection failed is not retried: like an append alone, its callers get the error (whether it
 * committed is unknown; idempotency keys make a caller's retry safe).
 */
export class GroupCommit {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;
  private readonly maxInFlight: number;
  private readonly maxBatch: number;

  constructor(
    private readonly pool: Pool,
    o: GroupCommitOptions = {},
  ) {
    this.maxInFlight = o.maxInFlight ?? 1;
    this.maxBatch = o.maxBatch ?? 256;
  }

  /** Appends waiting for a statement (a gauge of the backlog: what the worker's admission reads). */
  get backlog(): number {
    return this.waiting.length;
  }

  append<E extends StoredEvent>(req: AppendRequest): Promise<AppendResult<E>> {
    return new Promise<AppendResult<E>>((resolve, reject) => {
      this.waiting.push({ req, resolve: resolve as Waiting['resolve'], reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async send(batch: Waiting[]): Promise<void> {
    if (batch.length === 1) return settle(batch[0], () => appendInOneStatement(this.pool, batch[0].req));
    let rows: BatchRow[];
    try {
      rows = (await this.pool.query<BatchRow>(batchStatement(batch.map((w) => w.req)))).rows;
    } catch (e) {
      // Postgres answered with an error: the transaction rolled back, nothing of it is stored.
      if (e instanceof DatabaseError) {
        await Promise.all(batch.map((w) => settle(w, () => appendInOneStatement(this.pool, w.req))));
        return;
      }
      for (const w of batch) w.reject(translateInsertError(e));
      return;
    }
    await Promise.all(rows.map((row) => settle(batch[row.item - 1], () => this.outcome(batch[row.item - 1].req, row))));
    // Every caller hears something: an append the statement did not answer for (it always does)
    // is an error, not a promise left pending forever.
    const answered = new Set(rows.map((r) => r.item - 1));
    for (const [i, w] of batch.entries()) if (!answered.has(i)) w.reject(new Error('hub_append_batch returned no row for an append'));
  }

  private async outcome(req: AppendRequest, row: BatchRow): Promise<AppendResult<StoredEvent>> {
    const { tenantId, streamId, events, options } = req;
    if (row.status === 'conflict') {
      const actual = row.version_before;
      throw new DomainError('STREAM_VERSION_CONFLICT', `stream ${streamId} is at version ${actual}, expected ${String(options.expectedVersion)}`, {
        expected: options.expectedVersion,
        actual,
        streamId,
      });
    }
    if (row.status === 'duplicate') return readIdempotentEvents(asTenant(this.pool, tenantId), tenantId, options.idempotencyKey as string);
    const recorded = recordedEvents(req, Number(row.first_global), row.version_before, row.created_at as Date);
    return { nextExpectedVersion: row.version_before + events.length, events: recorded, duplicate: false };
  }
}

async function settle(w: Waiting, f: () => Promise<AppendResult<StoredEvent>>): Promise<void> {
  try {
    w.resolve(await f());
  } catch (e) {
    w.reject(e);
  }
}

/** `hub_append_batch` for `reqs`: per-append columns, then every event flattened in order. */
function batchStatement(reqs: AppendRequest[]) {
  const events = reqs.flatMap((r) => r.events);
  return {
    name: 'hub_append_batch',
    text: 'SELECT item, status, first_global::text AS first_global, version_before, created_at FROM hub_append_batch($1, $2, $3, $4, $5, $6, $7, $8, $9)',
    values: [
      reqs.map((r) => r.tenantId),
      reqs.map((r) => r.streamId),
      reqs.map((r) => expectedCode(r.options.expectedVersion)),
      reqs.map((r) => r.options.idempotencyKey ?? null),
      reqs.map((r) => r.events.length),
      events.map((e) => e.eventId),
      events.map((e) => e.type),
      events.map((e) => e.data),
      events.map((e) => e.metadata),
    ],
  };
}
