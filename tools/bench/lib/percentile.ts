/** The `p`th percentile of `xs` (nearest rank; NaN for none), as every bench reports its times. */
export function pct(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

/**
 * Runs `fn` `n` times one after another (after `warmup` runs not counted) and returns the p50 and
 * p99 of each run's wall time in µs, as a line: what the micro-benches print per variant.
 */
export async function timeEach(what: string, n: number, fn: () => Promise<unknown>, warmup = 20): Promise<string> {
  for (let i = 0; i < warmup; i++) await fn();
  const us: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    us.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return `${what} p50 ${pct(us, 50).toFixed(0)} µs, p99 ${pct(us, 99).toFixed(0)} µs`;
}
