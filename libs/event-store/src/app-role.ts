import { Client, escapeIdentifier, escapeLiteral, type Pool } from 'pg';
import { errorCode } from './pg-errors';

/**
 * The group role the apps' login role belongs to (migration `…_row_level_security`): it holds
 * the apps' privileges, and it is neither the owner of the tables nor a superuser, so the
 * row-level security policies apply to every statement it runs.
 */
export const APP_ROLE = 'hub_app';

/** What `bin/hub up` and the test stacks connect the apps as (user and password): a login role made on the server they migrate. */
export const DEV_APP_LOGIN = 'hub_dev';

/** `ownerUrl` with the dev login's user and password: the apps' URL on a dev or test server. */
export function devAppUrl(ownerUrl: string): string {
  const url = new URL(ownerUrl);
  url.username = DEV_APP_LOGIN;
  url.password = DEV_APP_LOGIN;
  return url.toString();
}

/**
 * Makes sure the user `appUrl` names can log in and is a member of {@link APP_ROLE}, connecting
 * as the owner: creates the login role with the URL's password when it is missing, grants the
 * group role when it lacks it (both need an owner allowed to create roles; an existing role's
 * password is never changed), and refuses a role that would bypass the policies (a superuser,
 * BYPASSRLS). Run after the migrations, which create the group role. `bin/hub migrate` does
 * this when the owner and the apps are different users; the dev stack and tests for their login.
 */
export async function ensureAppLogin(ownerUrl: string, appUrl: string): Promise<void> {
  const app = new URL(appUrl);
  const user = decodeURIComponent(app.username);
  const password = decodeURIComponent(app.password);
  if (!user) throw new Error("the apps' database URL names no user");
  const client = new Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    const who = escapeIdentifier(user);
    const state = async () =>
      (
        await client.query<{ bypasses: boolean; member: boolean }>(
          `SELECT rolsuper OR rolbypassrls AS bypasses, pg_has_role(oid, $2, 'MEMBER') AS member FROM pg_roles WHERE rolname = $1`,
          [user, APP_ROLE],
        )
      ).rows[0];
    // Roles belong to the server: test files migrating their databases in parallel race to
    // create the same login, and the loser's duplicate is no error.
    if (!(await state())) await tolerateRace(() => client.query(`CREATE ROLE ${who} LOGIN${password ? ` PASSWORD ${escapeLiteral(password)}` : ''}`));
    const role = await state();
    if (role?.bypasses)
      throw new Error(
        `the apps' database role ${user} is a superuser or has BYPASSRLS: row-level security would not apply to them; give the apps a role of their own`,
      );
    if (!role?.member) await tolerateRace(() => client.query(`GRANT ${APP_ROLE} TO ${who}`));
  } finally {
    await client.end();
  }
}

/** Runs a role change that another session may have made first: its duplicate is no error. */
async function tolerateRace(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (e) {
    // 42710 / 23505: another session created the role (or the membership) first; XX000
    // "tuple concurrently updated": it was changing the same catalog row at the same moment.
    if (!['23505', '42710', 'XX000'].includes(errorCode(e) ?? '')) throw e;
  }
}

/**
 * Why row-level security does not hold for the role `pool` connects as (a superuser or a role
 * with BYPASSRLS sees every tenant's rows whatever the policies say), or null when it holds.
 * The apps log it once at boot.
 */
export async function rowSecurityProblem(pool: Pool): Promise<string | null> {
  const { rows } = await pool.query<{ user: string; superuser: boolean; bypass: boolean }>(
    'SELECT current_user AS user, rolsuper AS superuser, rolbypassrls AS bypass FROM pg_roles WHERE rolname = current_user',
  );
  const r = rows[0];
  if (!r || (!r.superuser && !r.bypass)) return null;
  return `the database role ${r.user} is ${r.superuser ? 'a superuser' : 'allowed to bypass row-level security'}: every query sees every tenant's rows; connect the apps as a login role in ${APP_ROLE} (docs/security/tenant-isolation.md)`;
}
