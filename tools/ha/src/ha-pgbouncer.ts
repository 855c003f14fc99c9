import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freeListenPort } from '@hub/testing';
import { postgresUser, Proc } from './proc';
import { until } from './waits';

/**
 * Debian's PgBouncer in front of HAProxy (so it follows the primary as the apps would), in
 * `mode` pooling. Trust authentication: the suite's Postgres trusts 127.0.0.1, PgBouncer only
 * has to know the users' names. A failover cuts its server connections (HAProxy's
 * shutdown-sessions); it opens new ones to the new primary on the next client's demand.
 */
export class HaPgBouncer {
  private proc!: Proc;
  port = 0;
  private constructor(
    readonly dir: string,
    readonly mode: 'session' | 'transaction',
  ) {}

  static async start(target: { port: number }, mode: 'session' | 'transaction', users: string[], poolSize = 100): Promise<HaPgBouncer> {
    const b = new HaPgBouncer(mkdtempSync(join(tmpdir(), `hub-ha-pgbouncer-${mode}-`)), mode);
    b.port = await freeListenPort();
    writeFileSync(join(b.dir, 'users.txt'), users.map((u) => `"${u}" ""`).join('\n') + '\n');
    writeFileSync(
      join(b.dir, 'pgbouncer.ini'),
      `[databases]
* = host=127.0.0.1 port=${target.port}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${b.port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(b.dir, 'users.txt')}
pool_mode = ${mode}
; its console (database pgbouncer): the suite asks it which clients are connected
admin_users = postgres
max_client_conn = 1000
default_pool_size = ${poolSize}
; a server connection that broke is replaced at once, not after server_login_retry's 15 s
server_login_retry = 1
`,
    );
    const user = postgresUser();
    if (user.uid !== undefined) execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, b.dir]);
    // PgBouncer refuses to run as root: -u switches to the postgres user (as Debian's service does).
    b.proc = new Proc('pgbouncer', [...(user.uid !== undefined ? ['-u', 'postgres'] : []), join(b.dir, 'pgbouncer.ini')]);
    await until(`PgBouncer (${mode} pooling)`, async () => {
      const c = new Client({ connectionString: b.url('postgres'), connectionTimeoutMillis: 2000, query_timeout: 2000 });
      await c.connect();
      await c.query('SELECT 1').finally(() => c.end());
      return true;
    }).catch(async (e: Error) => {
      const log = b.proc.log;
      await b.destroy();
      throw new Error(`${e.message}\n${log}`);
    });
    return b;
  }

  /** The users of the clients connected to PgBouncer now (its console's SHOW CLIENTS). */
  async clientUsers(): Promise<string[]> {
    const c = new Client({ connectionString: `postgresql://postgres@127.0.0.1:${this.port}/pgbouncer`, connectionTimeoutMillis: 2000, query_timeout: 2000 });
    await c.connect();
    const { rows } = await c.query<{ user: string; database: string }>('SHOW CLIENTS').finally(() => c.end());
    return rows.filter((r) => r.database !== 'pgbouncer').map((r) => r.user);
  }

  url(user: string, password = user): string {
    return `postgresql://${user}:${password}@127.0.0.1:${this.port}/postgres`;
  }

  async destroy(): Promise<void> {
    await this.proc?.kill9();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
