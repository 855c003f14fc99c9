import { Client } from 'pg';
import { dependencyState } from '@hub/telemetry';
import { EVENTS_CHANNEL } from './append';

const MAX_RECONNECT_MS = 5000;

/**
 * The one connection a process keeps for `LISTEN hub_events` (or another channel). When it drops it reconnects
 * with backoff and then signals a wake-up, since NOTIFYs sent meanwhile are lost.
 */
export class ListenConnection {
  private client: Client | undefined;
  private closed = false;
  private reconnectMs = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly connectionString: string,
    private readonly onNotify: () => void,
    private readonly log: (message: string, error?: unknown) => void,
    /** The NOTIFY channel; the event store's own by default (projections use theirs). */
    private readonly channel: string = EVENTS_CHANNEL,
  ) {}

  async connect(): Promise<void> {
    const client = new Client({ connectionString: this.connectionString });
    client.on('notification', () => this.onNotify());
    client.on('error', (e) => this.lost(client, e));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (e) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw e;
    }
    if (this.closed) {
      await client.end();
      return;
    }
    this.client = client;
    this.reconnectMs = 0;
    // This connection is always open, so it is the first to see Postgres go and come back:
    // the process's Postgres state logs one line for each change (issue 11: an outage was silent).
    dependencyState('postgres').up();
    this.onNotify();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** True while LISTEN is in place (for health checks and tests). */
  get connected(): boolean {
    return this.client !== undefined;
  }

  /** Test hook: kills the backend of the LISTEN connection, as a failover would. */
  get backendPid(): number | undefined {
    return (this.client as (Client & { processID?: number }) | undefined)?.processID;
  }

  private lost(client: Client, error?: unknown): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    dependencyState('postgres').down(error ?? new Error('the LISTEN connection ended'));
    this.log('event subscriber: LISTEN connection lost, reconnecting', error);
    client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    this.reconnectMs = Math.min(Math.max(this.reconnectMs * 2, 100), MAX_RECONNECT_MS);
    this.timer = setTimeout(() => {
      this.connect().catch((e: unknown) => {
        dependencyState('postgres').down(e);
        this.log('event subscriber: reconnect failed', e);
        this.scheduleReconnect();
      });
    }, this.reconnectMs);
    this.timer.unref();
  }
}
