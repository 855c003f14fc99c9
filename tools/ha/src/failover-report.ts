import { HubProcess } from '@hub/testing';
import type { Ledger } from '../../faults/src/fault-hub';
import { within } from './waits';

/** What the failover suite records of one fault. */
export interface FailoverRow extends Ledger {
  serveAgainMs: number;
  chainsBroken: number;
  replayExit: number | null;
  watchersIntact: string;
  healthDuring: string;
  /** Probes whose client saw its turn accepted (state running, or text) with no completed turn in the log afterwards. */
  lostSeenByClients: number;
  crashed?: number;
}

/** The suite's results, one Markdown row per fault (what docs/high-availability.md's table is made of). */
export function failoverTable(report: Record<string, FailoverRow>): string {
  const rows = Object.entries(report).map(
    ([fault, r]) =>
      `| ${fault} | ${(r.serveAgainMs / 1000).toFixed(1)} s | ${r.acknowledged} | ${r.lost} (seen by clients ${r.lostSeenByClients}) | ${r.duplicated} | ${r.chainsBroken === 0 ? 'yes' : `no (${r.chainsBroken})`} | ${r.replayExit === 0 ? 'yes' : 'no'} | ${r.watchersIntact} | ${r.healthDuring} | ${r.crashed} |`,
  );
  return `\nHA suite results\n| fault | serve again | acknowledged | lost | duplicated | chains verify | read models = replay | watchers intact | /health/live, /health during | processes crashed |\n|---|---|---|---|---|---|---|---|---|---|\n${rows.join('\n')}\n`;
}

/** A `hub` CLI command, killed (and failed) when it has not exited within `ms`. */
export async function cli(args: string[], env: Record<string, string>, ms = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = new HubProcess(args, env);
  p.child.stdin?.end();
  const code = await within(`hub ${args.join(' ')}`, ms, p.exited).catch(async (e: Error) => {
    await p.kill('SIGKILL');
    throw new Error(`${e.message}\n${p.stderr.slice(-2000)}`);
  });
  return { code, stdout: p.stdout, stderr: p.stderr };
}
