import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { createTestDatabase, type TestDatabase } from '@hub/testing';
import { PersonSessions } from './person-sessions';

// A console session keeps the person's identity groups (what an approval rule's
// `approvers.groups` is checked against): those of the sign-in, replaced at every refresh.
let db: TestDatabase;
let pool: Pool;
let sessions: PersonSessions;
const tenant = randomUUID();

beforeAll(async () => {
  db = await createTestDatabase({ prefix: 'person_sessions' });
  pool = new Pool({ connectionString: db.url, max: 2 });
  const owner = new Pool({ connectionString: db.ownerUrl, max: 1 });
  await owner.query('INSERT INTO tenants (id, name) VALUES ($1, $2)', [tenant, 'people']);
  await owner.end();
  sessions = new PersonSessions(pool);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe('console sessions on Postgres', () => {
  it("keep the person's groups from sign-in, and take the provider's groups anew at a refresh", async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const person = { iss: 'https://idp.example', sub: 'fiona', name: 'Fiona', role: 'approver' as const };
    const { cookie, session } = await sessions.create(tenant, { ...person, groups: ['finance', 'staff'], expiresAt });
    expect(session.groups).toEqual(['finance', 'staff']);
    const found = await sessions.find(cookie);
    expect(found).toEqual({ state: 'live', session: expect.objectContaining({ groups: ['finance', 'staff'] }) });
    // Removed from finance at the provider: the refresh reads the groups again, as it does the role.
    const refreshed = await sessions.extend(session, { role: 'approver', groups: ['staff'], expiresAt });
    expect(refreshed.groups).toEqual(['staff']);
    expect(await sessions.find(cookie)).toEqual({ state: 'live', session: expect.objectContaining({ groups: ['staff'] }) });
  });
});
