/**
 * CPU time of the processes a benchmark is about, read from /proc (utime + stime), shared by the
 * benches that report CPU per run: which processes count is the whole point of such a number, so
 * it is decided once, here.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import type { Client } from 'pg';

const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim() || 100);

/** CPU time (ms) a process has used so far; null once it is gone. */
export function cpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return null;
  }
}

/** Resident memory of a process in KB (VmRSS); 0 once it is gone. */
export function rssKb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** `roots` and every process below them (a server's children, if it has any). */
export function withDescendants(roots: number[]): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      parent.set(Number(d), Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out = new Set(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (!out.has(ppid) || out.has(pid)) continue;
      out.add(pid);
      grew = true;
    }
  }
  return [...out];
}

/** Every process whose command name is `name` (e.g. every `redis-server` on the machine). */
export function pidsByComm(name: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/comm`, 'utf8').trim() === name;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * The Postgres processes that work for one database: its backends, and the server's own processes
 * (WAL writer, checkpointer, background writer, autovacuum launcher, ...), which every database
 * shares. Other databases' backends (other benches, test suites on the same server) are left out,
 * so the number holds on a machine that is busy with something else. The server must be local.
 */
export async function postgresPidsOf(admin: Client, database: string): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 OR backend_type <> 'client backend'`, [database]);
  return rows.map((r) => r.pid);
}

/** CPU ms used so far by each of `pids` (those gone are left out). */
export function cpuByPid(pids: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    const ms = cpuMs(pid);
    if (ms !== null) out.set(pid, ms);
  }
  return out;
}

/** CPU used between two {@link cpuByPid} readings: a process first seen in `after` counts from 0. */
export function cpuBetween(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}

/** CPU time of the whole machine (all cores, busy jiffies) so far, in ms. */
export function machineBusyMs(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = cpu;
  return (user + nice + system + irq + softirq + steal) * TICK_MS;
}

export type Group = 'server' | 'postgres' | 'redis';

export interface CpuSources {
  /** The side's own processes (a hub's ingress and workers, a peer's server). */
  server: () => number[];
  /** The database whose backends count (the side's own); none for a side without Postgres. */
  database?: string;
  /** The Redis servers that count: a private server's pid, or every `redis-server` (`'all'`). */
  redis?: (() => number[]) | 'all';
}

/**
 * Sums the CPU a set of processes used over a window. Polls every 200 ms, so a process that
 * starts during the window (a new Postgres backend) counts from zero and one that exits keeps
 * what it had used when last seen (all but its last 200 ms).
 */
export class CpuWindow {
  private seen = new Map<number, { group: Group; base: number; last: number }>();
  private timer?: NodeJS.Timeout;
  private polling = Promise.resolve();

  private constructor(
    private readonly src: CpuSources,
    private readonly admin: Client,
  ) {}

  /** `admin`: a connection to the Postgres server, for the database's backends. */
  static async open(src: CpuSources, admin: Client): Promise<CpuWindow> {
    const w = new CpuWindow(src, admin);
    await w.poll(true);
    w.timer = setInterval(() => void (w.polling = w.polling.then(() => w.poll(false))), 200);
    return w;
  }

  private async pids(): Promise<[number, Group][]> {
    const out: [number, Group][] = this.src.server().map((p) => [p, 'server']);
    if (this.src.database) {
      const { rows } = await this.admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [this.src.database]);
      out.push(...rows.map((r): [number, Group] => [r.pid, 'postgres']));
    }
    const redis = this.src.redis === 'all' ? pidsByComm('redis-server') : (this.src.redis?.() ?? []);
    out.push(...redis.map((p): [number, Group] => [p, 'redis']));
    return out;
  }

  private async poll(first: boolean): Promise<void> {
    for (const [pid, group] of await this.pids().catch(() => [] as [number, Group][])) {
      const now = cpuMs(pid);
      if (now === null) continue;
      const s = this.seen.get(pid);
      if (s) s.last = now;
      else this.seen.set(pid, { group, base: first ? now : 0, last: now });
    }
  }

  async close(): Promise<Record<Group, number>> {
    clearInterval(this.timer);
    await this.polling;
    await this.poll(false);
    const sum: Record<Group, number> = { server: 0, postgres: 0, redis: 0 };
    for (const s of this.seen.values()) sum[s.group] += s.last - s.base;
    return sum;
  }
}
