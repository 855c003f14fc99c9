import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { rowSecurityProblem } from './app-role';
import { asSystem, asTenant, beginAs, tenantScope } from './scope';
import { createScratchDatabase, type ScratchDatabase } from './testing/scratch-database';

// Issue 16, "Isolation in Postgres": the apps connect as a role that sees only the rows of the
// tenant set for the transaction, so a query that forgets its tenant filter returns nothing
// instead of another tenant's rows. Rows are written as the owner, behind the code's back, and
// read through the apps' role with deliberately unfiltered queries.

const TENANT_TABLES = [
  'tenants',
  'api_keys',
  'tenant_secrets',
  'streams',
  'events',
  'idempotency_keys',
  'session_snapshots',
  'read_sessions',
  'read_turns',
  'read_approvals',
  'read_usage',
  'schedules',
  'schedule_ticks',
  'webhook_endpoints',
  'webhook_messages',
  'webhook_attempts',
  'webhook_tenant_settings',
  'a2a_push_messages',
  'identity_providers',
  'person_sessions',
];
const A = randomUUID();
const B = randomUUID();
let db: ScratchDatabase;

/** One row of every tenant table for `tenant`, written by the owner. */
async function seed(owner: Pool, tenant: string, n: number): Promise<void> {
  const q = (sql: string, values: unknown[] = []) => owner.query(sql, [tenant, ...values]);
  await q('INSERT INTO tenants (id, name) VALUES ($1, $2)', [`t${n}`]);
  await q('INSERT INTO api_keys (id, tenant_id, prefix, hash, name) VALUES ($2, $1, $3, $4, $5)', [randomUUID(), `hub_rls${n}xxxxxxx`, 'ab'.repeat(32), 'k']);
  await q('INSERT INTO tenant_secrets (id, tenant_id, value) VALUES ($2, $1, $3)', [randomUUID(), `secret of ${n}`]);
  await q(`INSERT INTO streams (tenant_id, stream_id, version) VALUES ($1, 'session-s', 1)`);
  await q(
    `INSERT INTO events (global_position, tenant_id, stream_id, stream_position, event_id, type, data, metadata)
           VALUES ($2, $1, 'session-s', 1, $3, 'SessionOpened', '{}', '{}')`,
    [n, randomUUID()],
  );
  await q(`INSERT INTO idempotency_keys (tenant_id, key, stream_id, result) VALUES ($1, 'k', 'session-s', '{}')`);
  await q(`INSERT INTO session_snapshots (tenant_id, stream_id, version, fold_version, state) VALUES ($1, 'session-s', 1, 1, '{}')`);
  await q(
    `INSERT INTO read_sessions (tenant_id, session_id, status, turn_count, pending_approvals, prompt_tokens, completion_tokens, total_tokens, opened_at, last_activity_at, last_position)
           VALUES ($1, 's', 'idle', 1, 1, 0, 0, 0, now(), now(), $2)`,
    [n],
  );
  await q(
    `INSERT INTO read_turns (tenant_id, session_id, turn_id, status, requested_at, model_calls, tool_calls, prompt_tokens, completion_tokens, total_tokens, requested_position, updated_position)
           VALUES ($1, 's', 't', 'completed', now(), 0, 0, 0, 0, 0, $2, $2)`,
    [n],
  );
  await q(
    `INSERT INTO read_approvals (tenant_id, session_id, approval_id, turn_id, tool_call_id, tool_name, risk_tier, request_reason, requested_at, status, requested_position, updated_position)
           VALUES ($1, 's', 'a', 't', 'c', 'write_file', 'high', 'why', now(), 'pending', $2, $2)`,
    [n],
  );
  await q(
    `INSERT INTO read_usage (tenant_id, session_id, turn_id, day, model_calls, prompt_tokens, completion_tokens, tool_calls, approvals, approval_wait_ms, waiting, updated_position)
           VALUES ($1, 's', 't', current_date, 1, 0, 0, '{}', 0, 0, '{}', $2)`,
    [n],
  );
  await q(`INSERT INTO schedules (tenant_id, id, name, spec, created_by, last_tick_at) VALUES ($1, 'sch', 'daily', '{}', '{}', now())`);
  await q(`INSERT INTO schedule_ticks (tenant_id, schedule_id, scheduled_at, outcome, source) VALUES ($1, 'sch', now(), 'started', 'schedule')`);
  const endpoint = randomUUID();
  await q(`INSERT INTO webhook_endpoints (id, tenant_id, url, events, secrets) VALUES ($2, $1, 'https://example.com/hook', '{*}', '[]')`, [endpoint]);
  await q(
    `INSERT INTO webhook_messages (id, tenant_id, endpoint_id, event_type, event_position, payload, status) VALUES ($2, $1, $3, 'turn.completed', $4, '{}', 'pending')`,
    [`msg_${n}`, endpoint, n],
  );
  await q(
    `INSERT INTO webhook_attempts (id, tenant_id, endpoint_id, message_id, attempt, started_at, latency_ms, outcome) VALUES ($2, $1, $3, $4, 1, now(), 5, 'failed')`,
    [randomUUID(), endpoint, `msg_${n}`],
  );
  await q(`INSERT INTO webhook_tenant_settings (tenant_id, approval_links, link_key) VALUES ($1, true, 'key')`);
  await q(
    `INSERT INTO a2a_push_messages (id, tenant_id, task_id, config_id, event_position, frame, url, headers, body, status) VALUES ($2, $1, 's/t', 'c', $3, 0, 'https://example.com/a2a', '{}', '{}', 'pending')`,
    [`msg_push_${n}`, n],
  );
  await q(`INSERT INTO identity_providers (tenant_id, name, issuer, client_id, client_secret, scopes, groups_claim, group_roles, allowed_domains)
           VALUES ($1, 'idp', 'https://idp.example.com', 'hub', 'secret', '{openid}', 'groups', '{}', '{}')`);
  await q(
    `INSERT INTO person_sessions (id, tenant_id, secret_hash, csrf_token, iss, sub, role, expires_at)
           VALUES ($2, $1, 'hash', 'csrf', 'https://idp.example.com', $3, 'viewer', now() + interval '1 hour')`,
    [randomUUID(), `person-${n}`],
  );
}

const tenantOf = (table: string, row: Record<string, unknown>) => (table === 'tenants' ? row.id : row.tenant_id);

beforeAll(async () => {
  db = await createScratchDatabase('rls');
  await seed(db.ownerPool, A, 1);
  await seed(db.ownerPool, B, 2);
});
afterAll(() => db?.drop());

describe('row-level security through the apps role', () => {
  it.each(TENANT_TABLES)('an unfiltered SELECT * FROM %s as tenant A returns A rows and no row of B', async (table) => {
    const { rows } = await asTenant(db.pool, A).query(`SELECT * FROM ${table}`);
    expect(rows.map((r) => tenantOf(table, r))).toEqual([A]);
  });

  it.each(TENANT_TABLES)('an unfiltered SELECT * FROM %s with no tenant set returns nothing', async (table) => {
    expect((await db.pool.query(`SELECT * FROM ${table}`)).rows).toEqual([]);
  });

  it('holds for a transaction opened as tenant A, and a filter naming B finds nothing', async () => {
    const client = await db.pool.connect();
    try {
      await beginAs(client, tenantScope(A));
      expect((await client.query('SELECT tenant_id FROM events')).rows).toEqual([{ tenant_id: A }]);
      expect((await client.query('SELECT * FROM read_sessions WHERE tenant_id = $1', [B])).rows).toEqual([]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  });

  it('refuses to write a row of another tenant, and cannot change or delete one', async () => {
    const asA = asTenant(db.pool, A);
    await expect(asA.query(`INSERT INTO streams (tenant_id, stream_id, version) VALUES ($1, 'session-x', 0)`, [B])).rejects.toMatchObject({ code: '42501' });
    expect((await asA.query(`UPDATE streams SET version = 9 WHERE tenant_id = $1`, [B])).rowCount).toBe(0);
    expect((await asA.query(`DELETE FROM read_sessions WHERE tenant_id = $1`, [B])).rowCount).toBe(0);
    expect((await db.ownerPool.query(`SELECT version FROM streams WHERE tenant_id = $1`, [B])).rows).toEqual([{ version: 1 }]);
  });

  it('cannot rewrite the log, not even its own tenant rows', async () => {
    await expect(asTenant(db.pool, A).query(`UPDATE events SET type = 'X' WHERE tenant_id = $1`, [A])).rejects.toMatchObject({ code: '42501' });
  });

  it('lets named system work see every tenant', async () => {
    const { rows } = await asSystem(db.pool, 'audit').query('SELECT tenant_id FROM events ORDER BY global_position');
    expect(rows.map((r) => r.tenant_id)).toEqual([A, B]);
  });

  it('sets the tenant for its own statement only: the connection goes back to the pool with none', async () => {
    const one = new Pool({ connectionString: db.url, max: 1 });
    try {
      expect((await asTenant(one, A).query(`SELECT current_setting('hub.tenant_id', true) AS t`)).rows).toEqual([{ t: A }]);
      expect((await one.query(`SELECT count(*)::int AS n FROM events`)).rows).toEqual([{ n: 0 }]);
      await expect(asTenant(one, A).query('SELECT 1 / 0')).rejects.toMatchObject({ code: '22012' });
      expect((await asTenant(one, B).query('SELECT tenant_id FROM events')).rows).toEqual([{ tenant_id: B }]);
    } finally {
      await one.end();
    }
  });

  it('every table with a tenant column has row-level security enabled and forced (the owner is held to it too)', async () => {
    const { rows } = await db.ownerPool.query<{ table: string; enabled: boolean; forced: boolean; policies: number }>(
      `SELECT c.relname AS table, c.relrowsecurity AS enabled, c.relforcerowsecurity AS forced,
              (SELECT count(*)::int FROM pg_policy p WHERE p.polrelid = c.oid) AS policies
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r'
          AND (c.relname = 'tenants' OR EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped))
        ORDER BY c.relname`,
    );
    expect(rows.map((r) => r.table)).toEqual([...TENANT_TABLES].sort());
    for (const r of rows) expect(r).toEqual({ table: r.table, enabled: true, forced: true, policies: 2 });
  });

  it('connects the apps as a role that bypasses nothing, unlike the owner here', async () => {
    expect(await rowSecurityProblem(db.pool)).toBeNull();
    expect(await rowSecurityProblem(db.ownerPool)).toMatch(/superuser/);
  });
});
