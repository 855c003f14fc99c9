import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The kernel's range for ephemeral ports (what `listen(0)` and outgoing connections get). */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low > 0 && high >= low) return [low, high];
  } catch {
    // Not Linux: the IANA range.
  }
  return [49152, 65535];
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, () => s.close(() => resolve(true)));
  });
}

/**
 * A port for a child process to listen on that is free now and that nothing else is handed
 * meanwhile: below the ephemeral range (no `listen(0)` and no outgoing connection's local port
 * is taken from there), picked at random and checked bindable on every interface. A port from
 * `listen(0)`, or a fixed one inside the ephemeral range, can be taken by any of the suite's
 * hundreds of connections between the check and the child's listen (a worker failed so with
 * EADDRINUSE on 39376 in CI).
 */
export async function freeListenPort(): Promise<number> {
  const low = 10_000;
  const high = Math.max(low + 1000, ephemeralRange()[0] - 1);
  for (let i = 0; i < 50; i++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await bindable(port)) return port;
  }
  throw new Error(`no bindable port found in ${low}-${high}`);
}
