import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { freeListenPort } from '@hub/testing';
import { Proc } from './proc';
import { until } from './waits';

// A Redis primary, its replica and three Sentinels, real processes of Debian's redis-server and
// redis-sentinel on free ports of 127.0.0.1.

/** The name the Sentinels monitor the primary under (HUB_REDIS_SENTINEL_NAME). */
export const REDIS_PRIMARY_NAME = 'hub-ha';

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
