/** The projection thread's pool: one connection per projection applying a batch at once. */
export const PROJECTION_POOL_SIZE = 3;

/**
 * Every Postgres connection a process's projection thread may open: its pool, the leadership
 * lock's session and the runner's LISTEN (docs/connections.md).
 */
export const PROJECTION_CONNECTIONS = PROJECTION_POOL_SIZE + 2;
