import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import Redis from 'ioredis';
import { freeListenPort } from '@hub/testing';

// The HA suite's servers, every one a real process of Debian's packages on this machine: etcd,
// two Patroni nodes (each running its Postgres 15), HAProxy in front of them, and a Redis
// primary, its replica and three Sentinels. Ports are free ones; data lives in one temp dir.
// etcd and each Patroni node run in a network namespace of their own on a bridge (NodeNet), so
// that a partition between them is a real network fault: iptables rules in one node's namespace.

const PG_BIN = '/usr/lib/postgresql/15/bin';
const execFileAsync = promisify(execFile);
export const REDIS_PRIMARY_NAME = 'hub-ha';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `p`, or a rejection naming what was awaited once `ms` have passed. Every wait of the suite has
 * one: a socket that is opened and never answered (an upgrade, a connect through HAProxy, a CLI
 * process that does not exit) must fail the run with its name, not hang it until Jest's timeout.
 */
export function within<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`[ha] ${what}: no answer within ${(ms / 1000).toFixed(0)} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Polls `ok` until it answers true, for at most `ms`. One attempt may not outlast the deadline
 * either (at most 5 s): an attempt that hangs counts as a failed one, and the error names the
 * last failure.
 */
export async function until(what: string, ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  let last = '';
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`[ha] timed out after ${(ms / 1000).toFixed(0)} s waiting for ${what}${last ? ` (last attempt: ${last})` : ''}`);
    const done = await within(`one check for ${what}`, Math.min(left, 5000), ok()).catch((e: Error) => ((last = e.message), false));
    if (done) return;
    await sleep(100);
  }
}

/** Runs one setup step with a deadline, saying on stderr how long it took (a slow or stuck step shows by name). */
export async function step<T>(what: string, ms: number, run: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  const result = await within(what, ms, run());
  process.stderr.write(`[ha] ${what}: ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  return result;
}

function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  return { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
}

/** A child process whose stderr/stdout tail is kept for a failing run's report. */
class Proc {
  log = '';
  readonly child: ChildProcess;
  constructor(cmd: string, args: string[], opts: { uid?: number; gid?: number; cwd?: string } = {}) {
    // detached: its own process group, so kill9 takes a Patroni node with its Postgres.
    this.child = spawn(cmd, args, { ...opts, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (d: Buffer) => (this.log = (this.log + d.toString()).slice(-20_000));
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
  }
  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
  /** kill -9 of the whole process group: a machine that is gone, not a process that stops. */
  async kill9(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    try {
      process.kill(-(this.child.pid ?? 0), 'SIGKILL');
    } catch {
      this.child.kill('SIGKILL');
    }
    await exited;
  }
}

async function httpStatus(url: string): Promise<number> {
  const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
  await res.body?.cancel();
  return res.status;
}

/**
 * The Postgres side's network: a bridge `hubha<id>` (10.213.<id>.1/24, the machine's own address
 * on it: HAProxy, patronictl and the suite reach the nodes through it) and a network namespace
 * per server (etcd, pg1, pg2), each with its own address on the bridge. A partition is iptables
 * DROP rules inside one node's namespace, so they vanish with it. Needs root (`ip netns`).
 * run.sh picks the id (HA_NET) and removes what a killed run left behind.
 */
export class NodeNet {
  static readonly HOSTS: Record<string, number> = { etcd: 2, pg1: 11, pg2: 12 };
  private constructor(readonly id: number) {}

  static create(): NodeNet {
    if (process.getuid?.() !== 0) throw new Error('[ha] the HA suite needs root: each Postgres node runs in a network namespace of its own (ip netns)');
    let id = Number(process.env.HA_NET ?? 0);
    for (let tries = 0; !id && tries < 50; tries++) {
      const candidate = 2 + Math.floor(Math.random() * 250);
      if (spawnSyncStatus('ip', ['link', 'show', `hubha${candidate}`]) !== 0) id = candidate;
    }
    const net = new NodeNet(id);
    try {
      ip('link', 'add', net.bridge, 'type', 'bridge');
      ip('addr', 'add', `${net.prefix}.1/24`, 'dev', net.bridge);
      ip('link', 'set', net.bridge, 'up');
      for (const name of Object.keys(NodeNet.HOSTS)) {
        const ns = net.ns(name);
        ip('netns', 'add', ns);
        ip('link', 'add', `hh${id}-${name}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
        ip('link', 'set', `hh${id}-${name}`, 'master', net.bridge, 'up');
        ip('-n', ns, 'addr', 'add', `${net.host(name)}/24`, 'dev', 'eth0');
        ip('-n', ns, 'link', 'set', 'eth0', 'up');
        ip('-n', ns, 'link', 'set', 'lo', 'up');
      }
    } catch (e) {
      net.destroy();
      throw e;
    }
    return net;
  }

  get prefix(): string {
    return `10.213.${this.id}`;
  }
  get bridge(): string {
    return `hubha${this.id}`;
  }
  ns(name: string): string {
    return `hubha${this.id}-${name}`;
  }
  host(name: string): string {
    return `${this.prefix}.${NodeNet.HOSTS[name]}`;
  }

  /** `cmd` run in `name`'s namespace (as root; `setpriv` drops to another user where needed). */
  exec(name: string, cmd: string[]): string[] {
    return ['netns', 'exec', this.ns(name), ...cmd];
  }

  /**
   * Cuts `name` off from `peers` (both directions, packets dropped, as a broken link does:
   * no reset, the other side learns it only by its timeouts). Resolves to the heal.
   */
  partition(name: string, peers: string[]): () => void {
    const iptables = (...args: string[]) => ip(...this.exec(name, ['iptables', ...args]));
    for (const peer of peers) {
      iptables('-A', 'INPUT', '-s', this.host(peer), '-j', 'DROP');
      iptables('-A', 'OUTPUT', '-d', this.host(peer), '-j', 'DROP');
    }
    return () => {
      iptables('-F', 'INPUT');
      iptables('-F', 'OUTPUT');
    };
  }

  destroy(): void {
    for (const name of Object.keys(NodeNet.HOSTS)) spawnSyncStatus('ip', ['netns', 'del', this.ns(name)]);
    spawnSyncStatus('ip', ['link', 'del', this.bridge]);
  }
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function spawnSyncStatus(cmd: string, args: string[]): number | null {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status;
}

interface PatroniNode {
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
    this.etcd = new Proc('ip', [
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
    ]);
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
    writeFileSync(join(this.dir, 'haproxy.cfg'), haproxyConfig(this.port, this.nodes));
    this.haproxy = new Proc('haproxy', ['-f', join(this.dir, 'haproxy.cfg'), '-db']);
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
  }

  /** Through HAProxy, as the superuser (the suite migrates and checks as the owner). */
  get url(): string {
    return `postgresql://postgres:postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** Patroni of node `name` in its namespace, as the postgres user. */
  private patroni(name: string): Proc {
    const user = postgresUser();
    const drop = user.uid !== undefined ? ['setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--init-groups'] : [];
    return new Proc('ip', (this.net as NodeNet).exec(name, [...drop, 'patroni', join(this.dir, `${name}.yml`)]), { cwd: this.dir });
  }

  async leader(): Promise<PatroniNode | undefined> {
    for (const n of this.nodes) if (n.proc.alive && (await httpStatus(`http://${n.host}:${n.restPort}/primary`).catch(() => 0)) === 200) return n;
    return undefined;
  }

  /** Whether `node`'s Postgres answers as a standby (read only), asked directly, not through HAProxy. */
  async inRecovery(node: PatroniNode): Promise<boolean> {
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
    const { rows } = await c.query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery').finally(() => c.end());
    return rows[0].recovery;
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

  logs(): string {
    return this.nodes.map((n) => `--- ${n.name}\n${n.proc.log.slice(-3000)}`).join('\n') + `\n--- haproxy\n${this.haproxy?.log.slice(-2000)}`;
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

function patroniConfig(dir: string, node: { name: string; host: string; pgPort: number; restPort: number }, etcd: string, subnet: string): string {
  const { name, host, pgPort, restPort } = node;
  // Short TTL and loop so a failover shows within seconds here; production keeps Patroni's
  // defaults (ttl 30, loop_wait 10): docs/high-availability.md says what that means for the hub.
  return `scope: hub-ha
name: ${name}
restapi:
  listen: ${host}:${restPort}
  connect_address: ${host}:${restPort}
etcd3:
  hosts: ${etcd}
bootstrap:
  dcs:
    ttl: 20
    loop_wait: 2
    retry_timeout: 5
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        max_connections: 300
        wal_log_hints: "on"
        fsync: "off"
  initdb:
    - encoding: UTF8
  pg_hba:
    - local all all trust
    - host replication replicator ${subnet} trust
    - host all all ${subnet} trust
postgresql:
  listen: ${host}:${pgPort}
  connect_address: ${host}:${pgPort}
  data_dir: ${join(dir, name)}
  # After a partition the old primary may have written WAL the new one never got: pg_rewind,
  # and a fresh clone if that fails, bring it back as a standby.
  remove_data_directory_on_rewind_failure: true
  remove_data_directory_on_diverged_timelines: true
  bin_dir: ${PG_BIN}
  pgpass: ${join(dir, `${name}.pgpass`)}
  authentication:
    superuser: { username: postgres, password: postgres }
    replication: { username: replicator, password: replicator }
    rewind: { username: postgres, password: postgres }
  parameters:
    unix_socket_directories: ${dir}
`;
}

function haproxyConfig(port: number, nodes: { name: string; host: string; pgPort: number; restPort: number }[]): string {
  // Patroni's documented HAProxy setup: a TCP listener whose servers are health-checked on
  // Patroni's REST API; only the leader answers GET /primary with 200. A server marked down has
  // its sessions cut, so clients reconnect to the new primary instead of hanging on the old.
  return `global
  maxconn 1000
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
listen postgres_primary
  bind 127.0.0.1:${port}
  option httpchk GET /primary
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
${nodes.map((n) => `  server ${n.name} ${n.host}:${n.pgPort} check port ${n.restPort}`).join('\n')}
`;
}

/** A Redis primary and its replica (AOF on both), watched by three Sentinels. */
export class HaRedis {
  readonly servers: { port: number; proc: Proc }[] = [];
  readonly sentinels: { port: number; proc: Proc }[] = [];
  private constructor(readonly dir: string) {}

  static async start(): Promise<HaRedis> {
    const ha = new HaRedis(mkdtempSync(join(tmpdir(), 'hub-ha-redis-')));
    return ha.boot().then(
      () => ha,
      async (e: Error) => {
        const logs = [...ha.servers, ...ha.sentinels].map((p) => p.proc.log.slice(-1500)).join('\n---\n');
        await ha.destroy();
        throw new Error(`${e.message}\n${logs}`);
      },
    );
  }

  private async boot(): Promise<void> {
    for (const role of ['a', 'b']) {
      const port = await freeListenPort();
      const dir = join(this.dir, role);
      mkdirSync(dir);
      const replicaOf = this.servers.length ? ['--replicaof', '127.0.0.1', String(this.servers[0].port)] : [];
      this.servers.push({
        port,
        proc: new Proc('redis-server', [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'yes',
          '--appendfsync',
          'always',
          ...replicaOf,
        ]),
      });
      await until(`Redis ${role}`, async () => (await ask(port, (r) => r.ping())) === 'PONG');
    }
    await until('the replica to sync', async () => /master_link_status:up/.test(await ask(this.servers[1].port, (r) => r.info('replication'))));
    for (let i = 0; i < 3; i++) {
      const port = await freeListenPort();
      const file = join(this.dir, `sentinel-${i}.conf`);
      // down-after 1 s and a short failover timeout: production keeps Sentinel's defaults higher.
      writeFileSync(
        file,
        `port ${port}\nbind 127.0.0.1\ndir ${this.dir}\nsentinel monitor ${REDIS_PRIMARY_NAME} 127.0.0.1 ${this.servers[0].port} 2\nsentinel down-after-milliseconds ${REDIS_PRIMARY_NAME} 1000\nsentinel failover-timeout ${REDIS_PRIMARY_NAME} 5000\nsentinel parallel-syncs ${REDIS_PRIMARY_NAME} 1\n`,
      );
      this.sentinels.push({ port, proc: new Proc('redis-sentinel', [file]) });
    }
    // Every Sentinel knows the replica and the other Sentinels before a fault may be injected.
    await until('the Sentinels to know each other and the replica', async () => {
      for (const s of this.sentinels) {
        const [master] = (await ask(s.port, (r) => r.call('SENTINEL', 'MASTERS'))) as string[][];
        const field = (k: string) => master[master.indexOf(k) + 1];
        if (field('num-slaves') !== '1' || field('num-other-sentinels') !== '2') return false;
      }
      return true;
    });
  }

  get url(): string {
    return `redis://127.0.0.1:${this.servers[0].port}`;
  }

  /** HUB_REDIS_SENTINELS for the hub's processes. */
  get sentinelSetting(): string {
    return this.sentinels.map((s) => `127.0.0.1:${s.port}`).join(',');
  }

  async primaryPort(): Promise<number> {
    const [, port] = (await ask(this.sentinels[0].port, (r) => r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', REDIS_PRIMARY_NAME))) as string[];
    return Number(port);
  }

  async killPrimary(): Promise<number> {
    const port = await this.primaryPort();
    const server = this.servers.find((s) => s.port === port);
    await server?.proc.kill9();
    return port;
  }

  async destroy(): Promise<void> {
    for (const p of [...this.sentinels, ...this.servers]) await p.proc.kill9();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function ask<T>(port: number, f: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    connectTimeout: 2000,
    commandTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await f(r);
  } finally {
    r.disconnect();
  }
}

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
