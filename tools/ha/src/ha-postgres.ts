import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, type QueryResultRow } from 'pg';
import { freeListenPort } from '@hub/testing';
import { haproxyConfig, patroniConfig } from './ha-postgres-config';
import { NodeNet } from './node-net';
import { httpStatus, postgresUser, Proc } from './proc';
import { until, within } from './waits';

// etcd, two Patroni nodes (each running its Postgres 15) and HAProxy in front of them, every one
// a real process of Debian's packages on this machine. Ports are free ones; data lives in one
// temp dir. etcd and each Patroni node run in a network namespace of their own on a bridge
// (NodeNet), so that a partition between them is a real network fault: iptables rules in one
// node's namespace.

const execFileAsync = promisify(execFile);

export interface PatroniNode {
  name: string;
  /** Its address on the bridge (its namespace's eth0). */
  host: string;
  pgPort: number;
  restPort: number;
  proc: Proc;
}

/** Patroni + etcd managing a primary and a synchronous standby, behind HAProxy. */
export class HaPostgres {
  private etcd!: Proc;
  private haproxy!: Proc;
  net?: NodeNet;
  readonly nodes: PatroniNode[] = [];
  port = 0;
  replicaPort = 0;
  private constructor(readonly dir: string) {}

  static async start(): Promise<HaPostgres> {
    const ha = new HaPostgres(mkdtempSync(join(tmpdir(), 'hub-ha-pg-')));
    try {
      ha.net = NodeNet.create();
    } catch (e) {
      rmSync(ha.dir, { recursive: true, force: true });
      throw e;
    }
    // A start that fails takes down what it started (no etcd or Patroni left behind the run).
    return ha.boot().then(
      () => ha,
      async (e: Error) => {
        const logs = ha.logs();
        await ha.destroy();
        throw new Error(`${e.message}\n${logs}`);
      },
    );
  }

  private async boot(): Promise<void> {
    const user = postgresUser();
    if (user.uid !== undefined) chownSync(this.dir, user.uid, user.gid ?? user.uid);
    const net = this.net as NodeNet;
    // etcd's own namespace: its usual ports on its own address.
    const etcd = `http://${net.host('etcd')}`;
    this.etcd = new Proc(
      'ip',
      [
        ...net.exec('etcd', ['etcd']),
        '--name',
        'ha',
        '--data-dir',
        join(this.dir, 'etcd'),
        '--listen-client-urls',
        `${etcd}:2379`,
        '--advertise-client-urls',
        `${etcd}:2379`,
        '--listen-peer-urls',
        `${etcd}:2380`,
        '--initial-advertise-peer-urls',
        `${etcd}:2380`,
        '--initial-cluster',
        `ha=${etcd}:2380`,
      ],
      { label: 'etcd' },
    );
    await until('etcd', async () => (await httpStatus(`${etcd}:2379/health`)) === 200);
    for (const name of ['pg1', 'pg2']) {
      const node = { name, host: net.host(name), pgPort: await freeListenPort(), restPort: await freeListenPort() };
      const config = join(this.dir, `${name}.yml`);
      writeFileSync(config, patroniConfig(this.dir, node, `${net.host('etcd')}:2379`, `${net.prefix}.0/24`));
      if (user.uid !== undefined) chownSync(config, user.uid, user.gid ?? user.uid);
      this.nodes.push({ ...node, proc: this.patroni(name) });
      // The first node bootstraps the cluster; the second clones it once there is a leader.
      if (name === 'pg1')
        await until('the first Patroni node to lead', async () => (await httpStatus(`http://${node.host}:${node.restPort}/primary`)) === 200, 90_000);
    }
    await this.untilSynchronous();
    this.port = await freeListenPort();
    this.replicaPort = await freeListenPort();
    writeFileSync(join(this.dir, 'haproxy.cfg'), haproxyConfig(this.port, this.nodes, this.replicaPort));
    this.haproxy = new Proc('haproxy', ['-f', join(this.dir, 'haproxy.cfg'), '-db'], { label: 'haproxy' });
    // HAProxy counts a server up until its checks say otherwise: wait until several connections
    // in a row land on the primary (the standby has been marked down).
    let onPrimary = 0;
    await until('HAProxy to route to the primary only', async () => {
      const c = new Client({ connectionString: this.url, connectionTimeoutMillis: 2000, query_timeout: 2000 });
      await c.connect();
      const { rows } = await c.query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery').finally(() => c.end());
      onPrimary = rows[0].recovery ? 0 : onPrimary + 1;
      return onPrimary >= 5;
    });
    await until('HAProxy to route its replica port to the standby', async () => {
      const c = new Client({ connectionString: this.replicaUrl, connectionTimeoutMillis: 2000, query_timeout: 2000 });
      await c.connect();
      const { rows } = await c.query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery').finally(() => c.end());
      return rows[0].recovery;
    });
  }

  /** HAProxy's listener on Patroni's `GET /replica`: the standby, for reads that may lag. */
  get replicaUrl(): string {
    return `postgresql://postgres:postgres@127.0.0.1:${this.replicaPort}/postgres`;
  }

  /** Through HAProxy, as the superuser (the suite migrates and checks as the owner). */
  get url(): string {
    return `postgresql://postgres:postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** Patroni of node `name` in its namespace, as the postgres user. */
  private patroni(name: string): Proc {
    const user = postgresUser();
    const drop = user.uid !== undefined ? ['setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--init-groups'] : [];
    return new Proc('ip', (this.net as NodeNet).exec(name, [...drop, 'patroni', join(this.dir, `${name}.yml`)]), { cwd: this.dir, label: `patroni-${name}` });
  }

  async leader(): Promise<PatroniNode | undefined> {
    for (const n of this.nodes) if (n.proc.alive && (await httpStatus(`http://${n.host}:${n.restPort}/primary`).catch(() => 0)) === 200) return n;
    return undefined;
  }

  /** Whether `node`'s Postgres answers as a standby (read only), asked directly, not through HAProxy. */
  async inRecovery(node: PatroniNode): Promise<boolean> {
    return (await this.queryNode<{ recovery: boolean }>(node, 'SELECT pg_is_in_recovery() AS recovery'))[0].recovery;
  }

  /** `sql` on `node`'s Postgres directly (not through HAProxy), as the superuser. */
  async queryNode<R extends QueryResultRow>(node: PatroniNode, sql: string, params: unknown[] = []): Promise<R[]> {
    const c = new Client({
      host: node.host,
      port: node.pgPort,
      user: 'postgres',
      password: 'postgres',
      database: 'postgres',
      connectionTimeoutMillis: 2000,
      query_timeout: 2000,
    });
    await c.connect();
    return (await c.query<R>(sql, params).finally(() => c.end())).rows;
  }

  /** Waits until some live node is the synchronous standby (Patroni's `GET /sync` answers 200). */
  async untilSynchronous(ms = 90_000): Promise<PatroniNode> {
    let sync: PatroniNode | undefined;
    await until(
      'a synchronous standby',
      async () => {
        for (const n of this.nodes) if (n.proc.alive && (await httpStatus(`http://${n.host}:${n.restPort}/sync`).catch(() => 0)) === 200) sync = n;
        return sync !== undefined;
      },
      ms,
    );
    return sync as PatroniNode;
  }

  /** The primary's machine is gone: Patroni and its Postgres killed -9 together. */
  async killLeader(): Promise<PatroniNode> {
    const leader = await this.leader();
    if (!leader) throw new Error('no leader to kill');
    await leader.proc.kill9();
    // Its postmaster is in Patroni's process group, but kill it by its own pid to be sure.
    killPostmaster(join(this.dir, leader.name));
    return leader;
  }

  /**
   * A clean switchover, as an operator runs one (`patronictl switchover`, which asks the leader's
   * REST API): the leader stops cleanly, the synchronous standby is promoted, the old leader
   * follows it as a standby. Resolves when patronictl reports the switchover done.
   */
  async switchover(): Promise<{ from: string; to: string }> {
    const leader = await this.leader();
    const sync = await this.untilSynchronous();
    if (!leader || sync === leader) throw new Error('no leader and standby to switch over');
    await execFileAsync(
      'patronictl',
      ['-c', join(this.dir, `${leader.name}.yml`), 'switchover', 'hub-ha', '--leader', leader.name, '--candidate', sync.name, '--force'],
      { timeout: 60_000 },
    );
    return { from: leader.name, to: sync.name };
  }

  /**
   * Patroni's maintenance mode (`patronictl pause`/`resume`): Patroni then leaves Postgres alone
   * (no failover, and it no longer resumes a standby's paused WAL replay, which it otherwise does
   * at its next loop).
   */
  async maintenance(on: boolean): Promise<void> {
    await execFileAsync('patronictl', ['-c', join(this.dir, `${this.nodes[0].name}.yml`), on ? 'pause' : 'resume', 'hub-ha', '--wait'], { timeout: 60_000 });
  }

  /**
   * The primary stopped cleanly, as an operator's shutdown does: SIGTERM to its Patroni (what
   * `systemctl stop patroni` and a machine's shutdown send). Patroni stops its Postgres (fast
   * mode), waits for the synchronous standby to have the shutdown checkpoint and deletes its
   * leader key, so the standby promotes itself at its next loop without waiting for the key's
   * ttl. Resolves when Patroni has exited (as `systemctl stop` returns then).
   */
  async stopLeader(): Promise<PatroniNode> {
    const leader = await this.leader();
    if (!leader) throw new Error('no leader to stop');
    const exited = new Promise((r) => leader.proc.child.once('exit', r));
    leader.proc.child.kill('SIGTERM');
    await within(`Patroni ${leader.name} to stop after SIGTERM`, 60_000, exited);
    return leader;
  }

  /**
   * The primary's network is cut from the standby and etcd (HAProxy and the hub still reach it,
   * as when one switch port of a rack fails): DROP rules in its namespace. Resolves to the node
   * and the heal, which the caller must run (the rules also go with the namespace).
   */
  async partitionLeader(): Promise<{ node: PatroniNode; heal: () => void }> {
    const leader = await this.leader();
    if (!leader) throw new Error('no leader to partition');
    const peers = ['etcd', ...this.nodes.filter((n) => n !== leader).map((n) => n.name)];
    return { node: leader, heal: (this.net as NodeNet).partition(leader.name, peers) };
  }

  /** The dead node comes back (its machine restarted): Patroni rejoins it as a standby (pg_rewind). */
  async restart(node: PatroniNode): Promise<void> {
    node.proc = this.patroni(node.name);
  }

  /** The tail (`chars` per node) of each Patroni node's output, its Postgres's log included, and HAProxy's. */
  logs(chars = 3000): string {
    return this.nodes.map((n) => `--- ${n.name}\n${n.proc.log.slice(-chars)}`).join('\n') + `\n--- haproxy\n${this.haproxy?.log.slice(-2000)}`;
  }

  async destroy(): Promise<void> {
    for (const n of this.nodes) {
      await n.proc.kill9();
      killPostmaster(join(this.dir, n.name));
    }
    await this.haproxy?.kill9();
    await this.etcd?.kill9();
    this.net?.destroy();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** kill -9 of the postmaster whose pid its data directory records (the suite's own servers only). */
function killPostmaster(dataDir: string): void {
  const file = join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  try {
    if (pid > 0) process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
