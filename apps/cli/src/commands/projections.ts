import { createPool } from '@hub/event-store';
import { HUB_PROJECTIONS, projectionNamed, projectionStatus, rebuildProjection } from '@hub/projections';

/** `hub projections status`: one JSON line per projection (checkpoint, head, lag in events and ms). */
export async function projectionsStatus(databaseUrl: string, out: (value: unknown) => void): Promise<number> {
  const pool = createPool(databaseUrl, { max: 2 });
  try {
    for (const s of await projectionStatus(
      pool,
      HUB_PROJECTIONS.map((p) => p.name),
    ))
      out(s);
    return 0;
  } finally {
    await pool.end();
  }
}

/**
 * `hub projections rebuild NAME`: empties the read model and replays the log into it, printing
 * progress on stderr; ends with one JSON line (events, ms, events/s, who replayed).
 */
export async function projectionsRebuild(databaseUrl: string, name: string, out: (value: unknown) => void, say: (line: string) => void): Promise<number> {
  const def = projectionNamed(name);
  if (!def) {
    say(`hub: no projection named ${name} (known: ${HUB_PROJECTIONS.map((p) => p.name).join(', ')})`);
    return 2;
  }
  const pool = createPool(databaseUrl, { max: 4 });
  try {
    const r = await rebuildProjection(pool, def, {
      connectionString: databaseUrl,
      onProgress: (p) =>
        say(
          `rebuild ${name}: position ${p.position} of ${p.target} (${p.target ? Math.floor((100 * p.position) / p.target) : 100}%), ${p.eventsPerSec} events/s`,
        ),
    });
    out({
      projection: name,
      ranBy: r.ranBy,
      position: r.position,
      events: r.events,
      ms: r.ms,
      eventsPerSec: Math.round(r.events / Math.max(0.001, r.ms / 1000)),
    });
    return 0;
  } finally {
    await pool.end();
  }
}
