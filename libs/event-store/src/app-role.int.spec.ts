import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { ensureAppLogin, rowSecurityProblem } from './app-role';
import { createScratchDatabase, type ScratchDatabase } from './testing/scratch-database';

// `hub migrate` with an owner URL makes sure the apps' login (DATABASE_URL's user) exists and is
// in hub_app; the dev stack and the test stacks do the same for the dev login.

let db: ScratchDatabase;
const user = `hub_test_${randomBytes(4).toString('hex')}`;

function urlAs(name: string, password: string): string {
  const url = new URL(db.ownerUrl);
  url.username = name;
  url.password = password;
  return url.toString();
}

beforeAll(async () => {
  db = await createScratchDatabase('app_role');
});
afterAll(async () => {
  await db.ownerPool.query(`DROP ROLE IF EXISTS ${user}`).catch(() => undefined);
  await db.drop();
});

describe('ensureAppLogin', () => {
  it("creates the apps' login with the URL's password (quotes and all), once, even when called at the same time", async () => {
    const url = urlAs(user, `it's "odd" \\ ;`);
    await Promise.all([ensureAppLogin(db.ownerUrl, url), ensureAppLogin(db.ownerUrl, url), ensureAppLogin(db.ownerUrl, url)]);
    await ensureAppLogin(db.ownerUrl, url);
    const { rows } = await db.ownerPool.query(
      `SELECT rolcanlogin, rolsuper, pg_has_role(oid, 'hub_app', 'MEMBER') AS member FROM pg_roles WHERE rolname = $1`,
      [user],
    );
    expect(rows).toEqual([{ rolcanlogin: true, rolsuper: false, member: true }]);
    const c = new Client({ connectionString: url });
    await c.connect();
    try {
      // Connected as the new login: under the policies, so an unfiltered read sees nothing.
      expect((await c.query('SELECT current_user AS u')).rows).toEqual([{ u: user }]);
      expect((await c.query('SELECT count(*)::int AS n FROM events')).rows).toEqual([{ n: 0 }]);
    } finally {
      await c.end();
    }
  });

  it('refuses to hand the apps a role that bypasses row-level security', async () => {
    await expect(ensureAppLogin(db.ownerUrl, db.ownerUrl)).rejects.toThrow(/superuser or has BYPASSRLS/);
    expect(await rowSecurityProblem(db.ownerPool)).toMatch(/is a superuser/);
  });
});
