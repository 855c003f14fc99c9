// Every wait of the HA suite has a deadline that names what it waited for: `within` for one
// promise, `until` for a condition polled, `step` for a setup step that also reports its time.

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
