import { createHash } from 'node:crypto';

/**
 * The hash chain of a stream (tamper evidence, docs/adr/0011-hash-chain.md). An event's hash is
 * SHA-256, hex, over its canonical bytes: the JSON array
 *
 *   ["hub-event-v1", tenantId, streamId, streamPosition, eventId, type, data, metadata, prevHash]
 *
 * where `data` and `metadata` are the exact JSON texts stored (the `json` columns keep text as
 * written) and `prevHash` is the previous event's hash in the stream (null for the first). A
 * change to any of those fields, a deleted event (the next one's prevHash no longer matches) or
 * a moved one (its position is hashed) breaks the chain at that event. The global position and
 * the time are not hashed: they are assigned by the database inside the append.
 */
export interface ChainedFields {
  tenantId: string;
  streamId: string;
  streamPosition: number;
  eventId: string;
  type: string;
  /** The stored JSON text of `data`. */
  data: string;
  /** The stored JSON text of `metadata`. */
  metadata: string;
}

const VERSION = 'hub-event-v1';

export function eventHash(e: ChainedFields, prevHash: string | null): string {
  const canonical = JSON.stringify([VERSION, e.tenantId, e.streamId, e.streamPosition, e.eventId, e.type, e.data, e.metadata, prevHash]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** One broken link: where, and what is wrong there. */
export interface BrokenLink {
  tenantId: string;
  streamId: string;
  streamPosition: number;
  reason: 'hash mismatch' | 'prev_hash mismatch' | 'position gap' | 'unchained after chained' | 'head mismatch';
  detail: string;
}

/**
 * Checks one stream's events in stream order, as stored, and returns its first broken link (or
 * null). Events before the first hashed one (written before the chain existed) are skipped.
 */
export class StreamChecker {
  private prevHash: string | null = null;
  private prevPosition = 0;
  private chained = false;
  broken: BrokenLink | null = null;
  checked = 0;

  constructor(
    readonly tenantId: string,
    readonly streamId: string,
  ) {}

  /** Feeds the next stored event; false once the stream is broken (later events are not checked). */
  next(e: ChainedFields & { hash: string | null; prevHash: string | null }): boolean {
    if (this.broken) return false;
    const at = (reason: BrokenLink['reason'], detail: string) => {
      this.broken = { tenantId: this.tenantId, streamId: this.streamId, streamPosition: e.streamPosition, reason, detail };
      return false;
    };
    if (this.prevPosition !== 0 && e.streamPosition !== this.prevPosition + 1) {
      return at(
        'position gap',
        `expected position ${this.prevPosition + 1} after ${this.prevPosition}, found ${e.streamPosition}: an event was deleted or moved`,
      );
    }
    this.prevPosition = e.streamPosition;
    if (e.hash === null) {
      if (this.chained) return at('unchained after chained', 'an event without a hash follows hashed ones');
      return true;
    }
    if (!this.chained && e.prevHash !== null) {
      return at('prev_hash mismatch', `the stream's first hashed event names a previous hash ${short(e.prevHash)}: an earlier event was deleted`);
    }
    if (this.chained && e.prevHash !== this.prevHash) {
      return at('prev_hash mismatch', `prev_hash ${short(e.prevHash)} is not the previous event's hash ${short(this.prevHash)}`);
    }
    const expected = eventHash(e, e.prevHash);
    if (expected !== e.hash) return at('hash mismatch', `stored ${short(e.hash)}, computed ${short(expected)}: the event's content was changed`);
    this.chained = true;
    this.prevHash = e.hash;
    this.checked++;
    return true;
  }
}

/** After the last event: the stream row's version and head hash must be that event's. */
export function checkHead(
  checker: StreamChecker,
  last: { streamPosition: number; hash: string | null } | null,
  head: { version: number; lastHash: string | null },
): BrokenLink | null {
  if (checker.broken) return checker.broken;
  const position = last?.streamPosition ?? 0;
  if (position !== head.version || (head.lastHash !== null && (last?.hash ?? null) !== head.lastHash)) {
    checker.broken = {
      tenantId: checker.tenantId,
      streamId: checker.streamId,
      streamPosition: position + 1,
      reason: 'head mismatch',
      detail: `the stream is at version ${head.version} with head ${short(head.lastHash)}, its last event is position ${position} with ${short(last?.hash ?? null)}: an event at the end was deleted`,
    };
  }
  return checker.broken;
}

const short = (h: string | null) => (h === null ? 'null' : `${h.slice(0, 12)}…`);
