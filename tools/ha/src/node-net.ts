import { execFileSync, spawnSync } from 'node:child_process';

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
