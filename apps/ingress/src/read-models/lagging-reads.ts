import type { OnModuleDestroy } from '@nestjs/common';
import { asSystem, createPool } from '@hub/event-store';
import { ReadModels } from '@hub/projections';
import { observeGauge } from '@hub/telemetry';
import type { Pool } from 'pg';

/**
 * How far the lagging reads' server is behind its primary, in seconds: now less the commit time
 * of the last transaction it replayed, and 0 once it has replayed all the WAL it received (an
 * idle primary writes nothing, which is no lag) or when it is a primary itself.
 */
export const REPLAY_LAG_SQL = `SELECT CASE WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
  ELSE greatest(0, extract(epoch FROM now() - pg_last_xact_replay_timestamp())) END::float8 AS lag`;

/**
 * The read-model queries that may lag behind the log by replication as well as by projection:
 * lists a person looks at (the session list, usage), never what a command reads before it
 * writes nor an approval's answer. With HUB_READ_DATABASE_URL they read from a standby through
 * a pool of their own (as large as the main one); unset, from the main pool.
 */
export class LaggingReads implements OnModuleDestroy {
  readonly models: ReadModels;
  private constructor(
    readonly pool: Pool,
    /** Whether the pool is this class's own, on HUB_READ_DATABASE_URL. */
    readonly standby: boolean,
  ) {
    this.models = new ReadModels(pool);
  }

  static on(mainPool: Pool, settings: { readDatabaseUrl?: string; dbPoolSize: number }): LaggingReads {
    if (!settings.readDatabaseUrl) return new LaggingReads(mainPool, false);
    return new LaggingReads(createPool(settings.readDatabaseUrl, { max: settings.dbPoolSize }), true);
  }

  /** Seconds behind the primary ({@link REPLAY_LAG_SQL}). */
  async replayLagSeconds(): Promise<number> {
    const { rows } = await asSystem(this.pool, 'metrics').query<{ lag: number }>(REPLAY_LAG_SQL);
    return Number(rows[0]?.lag ?? 0);
  }

  /** `hub_db_read_replay_lag_seconds` on /metrics, observed at each scrape. */
  registerGauge(): void {
    observeGauge(
      'hub.db.read_replay_lag.seconds',
      'How far the server of the lag-tolerant read-model lists (HUB_READ_DATABASE_URL) is behind the primary; 0 without one',
      async () => [{ value: await this.replayLagSeconds(), attributes: { standby: String(this.standby) } }],
      's',
    );
  }

  async onModuleDestroy(): Promise<void> {
    if (this.standby) await this.pool.end();
  }
}
