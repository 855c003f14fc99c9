import { Client } from 'pg';
import { createPool } from './prisma-client';
import { createScratchDatabase, type ScratchDatabase } from './testing/scratch-database';

// A failover closes every connection, the ones checked out of a pool mid-transaction included.
// `pg` leaves a checked-out client no `error` listener, so its server going away crashed the
// process (the HA suite's worker died on a Patroni failover). Against real Postgres: the
// backend of a checked-out client is terminated, as a failover would.

jest.setTimeout(60_000);

let db: ScratchDatabase;
beforeAll(async () => {
  db = await createScratchDatabase('pool_failover', false);
});
afterAll(() => db.drop());

it("a checked-out client's server going away fails its query and leaves the process running", async () => {
  const pool = createPool(db.url, { max: 2 });
  const admin = new Client({ connectionString: db.url });
  await admin.connect();
  const uncaught = jest.fn();
  process.on('uncaughtException', uncaught);
  try {
    const client = await pool.connect();
    await client.query('BEGIN');
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // The connection ends while the client is checked out and idle in its transaction: `pg`
    // emits `error` on the client itself (no query is running to reject).
    const ended = new Promise((r) => client.once('end', r));
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    await ended;
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release(true);
    // The pool serves again on a new connection.
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(uncaught).not.toHaveBeenCalled();
  } finally {
    process.off('uncaughtException', uncaught);
    await admin.end();
    await pool.end();
  }
});
