import { DependencyState, dependencyState } from '@hub/telemetry';
import { ListenConnection } from './listen-connection';
import { createPool } from './prisma-client';
import { createScratchDatabase, type ScratchDatabase } from './testing/scratch-database';

// Issue 11, defect 9: a Postgres outage was not logged at all. The process's Postgres state
// (`dependencyState('postgres')`, one line per change) hears of it from the LISTEN connection
// every ingress and worker keeps open, and from the pool. Against real Postgres: the LISTEN
// backend is killed, as a restart or failover would, and comes back.

jest.setTimeout(60_000);

let db: ScratchDatabase;
beforeAll(async () => {
  db = await createScratchDatabase('pg_state', false);
});
afterAll(() => db.drop());

const until = async (what: string, check: () => boolean, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

it('a lost connection reports Postgres down, and the reconnect reports it up', async () => {
  // Spies that call through: the real state logs; the test reads who was told what, in order.
  const down = jest.spyOn(DependencyState.prototype, 'down');
  const up = jest.spyOn(DependencyState.prototype, 'up');
  const postgresCalls = (m: jest.SpyInstance) =>
    m.mock.contexts.flatMap((c, i) => ((c as DependencyState).name === 'postgres' ? [m.mock.invocationCallOrder[i]] : []));
  const conn = new ListenConnection(
    db.url,
    () => undefined,
    () => undefined,
  );
  const admin = createPool(db.url, { max: 1 });
  try {
    await conn.connect();
    expect(dependencyState('postgres').isDown).toBe(false);
    const pid = conn.backendPid;
    const before = { down: postgresCalls(down).length, up: postgresCalls(up).length };
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await until('the reconnect', () => conn.connected && conn.backendPid !== pid);
    const downs = postgresCalls(down).slice(before.down);
    const ups = postgresCalls(up).slice(before.up);
    expect(downs.length).toBeGreaterThan(0);
    expect(ups.length).toBeGreaterThan(0);
    expect(Math.max(...ups)).toBeGreaterThan(Math.min(...downs));
    expect(dependencyState('postgres').isDown).toBe(false);
  } finally {
    down.mockRestore();
    up.mockRestore();
    await conn.close();
    await admin.end();
  }
});
