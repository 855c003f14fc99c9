import { createPool } from '@hub/event-store';
import { HUB_PROJECTIONS, replaySession, sessionsOf } from '@hub/projections';

type Out = (line: string) => void;

/**
 * `hub replay SESSION --tenant T` / `hub replay --all [--tenant T]`: folds each session's log
 * again into its snapshot and every read model and compares with what is stored; each
 * difference is a JSON line ({tenantId, sessionId, model, key, field, stored, replayed}), then a
 * summary. Exit 0 when nothing differs, 1 otherwise. A read model whose checkpoint has not
 * reached the session's last event within `--wait` seconds is a difference, or is left out with
 * `--skip-lagging` (no projector running).
 */
export async function replay(
  o: { databaseUrl: string; tenantId?: string; sessionId?: string; all: boolean; waitMs?: number; skipLagging?: boolean },
  out: Out,
  say: Out,
): Promise<number> {
  const pool = createPool(o.databaseUrl, { max: 2 });
  try {
    const sessions = o.all ? await sessionsOf(pool, o.tenantId) : [{ tenantId: o.tenantId as string, sessionId: o.sessionId as string }];
    let differences = 0;
    let lagging = 0;
    // Once a projection has been waited for in vain (its projector is gone), the next sessions
    // do not wait for it again: --wait is a bound on the run, not on each session.
    let waitMs = o.waitMs;
    const onLagging = () => {
      lagging++;
      waitMs = 0;
    };
    for (const [i, s] of sessions.entries()) {
      for (const d of await replaySession(pool, HUB_PROJECTIONS, s.tenantId, s.sessionId, { waitMs, skipLagging: o.skipLagging, onLagging })) {
        differences++;
        out(JSON.stringify(d));
      }
      if (sessions.length > 20 && (i + 1) % 100 === 0) say(`replay: ${i + 1}/${sessions.length} sessions`);
    }
    // What --skip-lagging left out is said, so a weaker check is never a silent one.
    out(JSON.stringify({ ok: differences === 0, sessions: sessions.length, differences, ...(o.skipLagging ? { lagging } : {}) }));
    return differences === 0 ? 0 : 1;
  } finally {
    await pool.end();
  }
}
