import type { EventMetadata } from '@hub/domain';

/**
 * An event as a projection sees it. `data` and `metadata` are read only for the types the
 * projection declares in `reads`; for every other type they are null (a rebuild then does not
 * pay for parsing text deltas it ignores).
 */
export interface ProjectedEvent {
  type: string;
  data: unknown;
  metadata: EventMetadata | null;
  tenantId: string;
  streamId: string;
  globalPosition: number;
  createdAt: string;
}

/** The columns of a read model table, as the store reads and writes them (snake_case, JSON values). */
export interface TableSpec {
  table: string;
  /** Primary key columns. */
  key: readonly string[];
  /** The columns a batch loads rows by (a group: the rows one event may change), with their SQL types. */
  group: readonly { column: string; type: 'uuid' | 'text' }[];
  columns: readonly string[];
}

export type Row = Record<string, unknown>;

/**
 * A checkpointed projection: a pure fold over groups of rows. The runner reads a batch of the
 * log, loads the groups its events touch, folds each event into its group with `evolve`, and
 * writes the changed rows and the checkpoint in one transaction.
 */
export interface ProjectionDef<R extends Row = Row> {
  /** The checkpoint's name, and what `bin/hub projections rebuild NAME` takes. */
  name: string;
  table: TableSpec;
  /** Event types whose `data` and `metadata` the fold reads. */
  reads: ReadonlySet<string>;
  /** The group's values (in `table.group` order) the event changes, or null when it changes nothing here. */
  groupOf(e: ProjectedEvent): string[] | null;
  /**
   * Pure: the group's rows after the event. A row the event does not change must be returned
   * as the same object (the runner writes only rows that are new objects).
   */
  evolve(rows: readonly R[], e: ProjectedEvent): R[];
}
