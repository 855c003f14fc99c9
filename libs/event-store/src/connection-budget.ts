import type { Pool } from 'pg';

/** One holder of Postgres connections in a process, and the most it may open. */
export interface ConnectionUse {
  what: string;
  connections: number;
}

/** What the server has room for, as read at boot. */
export interface ConnectionRoom {
  max: number;
  reserved: number;
  inUse: number;
}

/**
 * Refuses to start a process that could need more Postgres connections than the server has
 * left (docs/connections.md): with pools sized from turn slots, four workers of 64 slots each
 * overran a default Postgres (`max_connections = 100`) under load, long after they started, with
 * "sorry, too many clients already" on whichever query came last. Checked at boot, the same
 * mistake is one clear line before anything runs. `inUse` counts every client connection open
 * now (other hub processes' included, as far as they have opened theirs).
 */
export async function assertConnectionsFit(pool: Pool, service: string, uses: readonly ConnectionUse[]): Promise<ConnectionRoom> {
  const { rows } = await pool.query<ConnectionRoom>(
    `SELECT current_setting('max_connections')::int AS max,
            current_setting('superuser_reserved_connections')::int AS reserved,
            (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend') - 1 AS "inUse"`,
  );
  const problem = connectionProblem(service, uses, rows[0]);
  if (problem) throw new Error(problem);
  return rows[0];
}

/** Why `uses` cannot fit in `room` (null when they do): the sum, its parts and the way out. */
export function connectionProblem(service: string, uses: readonly ConnectionUse[], room: ConnectionRoom): string | null {
  const need = uses.reduce((n, u) => n + u.connections, 0);
  const free = room.max - room.reserved - room.inUse;
  if (need <= free) return null;
  const parts = uses.map((u) => `${u.connections} ${u.what}`).join(' + ');
  return (
    `this ${service} may open ${need} Postgres connections (${parts}), but the server has room for ${Math.max(0, free)} ` +
    `(max_connections ${room.max} - ${room.reserved} reserved - ${room.inUse} in use); ` +
    'lower HUB_DB_POOL_SIZE, run fewer processes per database, or raise max_connections (docs/connections.md)'
  );
}
