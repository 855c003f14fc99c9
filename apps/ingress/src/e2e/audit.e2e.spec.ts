import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { HubStack, TransportTestClient } from '@hub/testing';

// Issue 15: the audit trail of a real run. The HTTP export and `hub export` carry every event's
// hash and prev_hash; `hub audit verify` passes on the log and on the export file offline, and
// names the stream and position of an event edited with SQL. `hub audit heads` prints the anchor.

jest.setTimeout(120_000);

let stack: HubStack;
let tenant: { tenantId: string; apiKey: string };

beforeAll(async () => {
  stack = await HubStack.start({ label: 'audit' });
  tenant = await stack.createTenant('audit');
  const c = await TransportTestClient.connect(stack.url, tenant.apiKey, { session: 'audited' });
  await c.waitFor('snapshot', (x) => x.state !== null);
  c.send([{ type: 'submit', prompt: 'calculate 6 * 7' }]);
  await c.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
  await c.close();
});
// The last test stops the stack itself (it proves that stop fails); otherwise stop here.
afterAll(() => stack?.stop());

it('exports carry the hashes and verify, online and offline; an edit is named by stream and position', async () => {
  const res = await fetch(`${stack.url}/v1/sessions/audited/export`, { headers: { authorization: `Bearer ${tenant.apiKey}` } });
  expect(res.status).toBe(200);
  const body = await res.text();
  const lines = body
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { streamPosition: number; hash: string; prevHash: string | null; type: string });
  expect(lines.length).toBeGreaterThan(5);
  expect(lines[0]?.prevHash).toBeNull();
  for (let i = 1; i < lines.length; i++) expect(lines[i]?.prevHash).toBe(lines[i - 1]?.hash);

  const cli = await stack.cli(['export', 'audited', '--tenant', tenant.tenantId]);
  expect(cli.code).toBe(0);
  expect(cli.stdout).toBe(body);

  const file = join(mkdtempSync(join(tmpdir(), 'hub-audit-')), 'audited.ndjson');
  writeFileSync(file, body);
  const offline = await stack.cli(['audit', 'verify', '--file', file]);
  expect(offline.code).toBe(0);
  expect(JSON.parse(offline.stdout.trim().split('\n').pop() ?? '{}')).toEqual(expect.objectContaining({ ok: true, events: lines.length }));

  const online = await stack.cli(['audit', 'verify', '--tenant', tenant.tenantId]);
  expect(online.code).toBe(0);

  const heads = await stack.cli(['audit', 'heads', '--tenant', tenant.tenantId]);
  expect(heads.stdout).toContain(lines[lines.length - 1]?.hash);

  // Someone with database access edits the answer.
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    const target = lines.find((l) => l.type === 'TurnCompleted') as { streamPosition: number };
    const { rows } = await db.query<{ data: string }>(
      `SELECT data::text AS data FROM events WHERE tenant_id = $1 AND stream_id = 'session-audited' AND stream_position = $2`,
      [tenant.tenantId, target.streamPosition],
    );
    const original = rows[0]?.data ?? '';
    await db.query(`UPDATE events SET data = $3::json WHERE tenant_id = $1 AND stream_id = 'session-audited' AND stream_position = $2`, [
      tenant.tenantId,
      target.streamPosition,
      original.replace('42', '41'),
    ]);
    const broken = await stack.cli(['audit', 'verify', '--tenant', tenant.tenantId, '--session', 'audited']);
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout.split('\n')[0] ?? '{}')).toEqual(
      expect.objectContaining({ broken: true, streamId: 'session-audited', streamPosition: target.streamPosition, reason: 'hash mismatch' }),
    );
    // Put it back: the stack checks every chain when it stops.
    await db.query(`UPDATE events SET data = $3::json WHERE tenant_id = $1 AND stream_id = 'session-audited' AND stream_position = $2`, [
      tenant.tenantId,
      target.streamPosition,
      original,
    ]);
  } finally {
    await db.end();
  }
});

it('replay folds the log again into the snapshot and read models: zero differences, and an edited row is named by field', async () => {
  const ok = await stack.cli(['replay', 'audited', '--tenant', tenant.tenantId]);
  expect(ok.stderr).toBe('');
  expect(ok.code).toBe(0);
  expect(JSON.parse(ok.stdout.trim())).toEqual({ ok: true, sessions: 1, differences: 0 });
  const all = await stack.cli(['replay', '--all']);
  expect(all.code).toBe(0);

  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    await db.query(`UPDATE read_sessions SET turn_count = 99 WHERE tenant_id = $1 AND session_id = 'audited'`, [tenant.tenantId]);
    const broken = await stack.cli(['replay', 'audited', '--tenant', tenant.tenantId]);
    expect(broken.code).toBe(1);
    const lines = broken.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual({
      tenantId: tenant.tenantId,
      sessionId: 'audited',
      model: 'sessions',
      key: `${tenant.tenantId}/audited`,
      field: 'turn_count',
      stored: 99,
      replayed: 1,
    });
    expect(lines[lines.length - 1]).toEqual({ ok: false, sessions: 1, differences: 1 });
    await db.query(`UPDATE read_sessions SET turn_count = 1 WHERE tenant_id = $1 AND session_id = 'audited'`, [tenant.tenantId]);
  } finally {
    await db.end();
  }
});

it('verify names the row after a deletion (middle and last) and a reordering done with SQL, and passes once they are undone', async () => {
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const where = `tenant_id = '${tenant.tenantId}' AND stream_id = 'session-audited'`;
  const verify = async () => {
    const res = await stack.cli(['audit', 'verify', '--tenant', tenant.tenantId, '--session', 'audited']);
    const lines = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    return { code: res.code, first: lines[0] };
  };
  try {
    const { rows } = await db.query<{ n: number }>(`SELECT max(stream_position) AS n FROM events WHERE ${where}`);
    const last = rows[0]?.n ?? 0;
    // A row deleted from the middle: the next one's position shows the gap.
    await db.query(`CREATE TEMP TABLE saved AS SELECT * FROM events WHERE ${where} AND stream_position IN (3, ${last})`);
    await db.query(`DELETE FROM events WHERE ${where} AND stream_position = 3`);
    expect(await verify()).toEqual({
      code: 1,
      first: expect.objectContaining({ broken: true, streamId: 'session-audited', streamPosition: 4, reason: 'position gap' }),
    });
    await db.query(`INSERT INTO events SELECT * FROM saved WHERE stream_position = 3`);
    // The last row deleted: no link is left to break, the stream's head names it.
    await db.query(`DELETE FROM events WHERE ${where} AND stream_position = ${last}`);
    expect(await verify()).toEqual({
      code: 1,
      first: expect.objectContaining({ broken: true, streamId: 'session-audited', streamPosition: last, reason: 'head mismatch' }),
    });
    await db.query(`INSERT INTO events SELECT * FROM saved WHERE stream_position = ${last}`);
    // Two rows swapped: the first of them no longer follows its predecessor.
    const swap = async () => {
      await db.query(`UPDATE events SET stream_position = -1 WHERE ${where} AND stream_position = 2`);
      await db.query(`UPDATE events SET stream_position = 2 WHERE ${where} AND stream_position = 3`);
      await db.query(`UPDATE events SET stream_position = 3 WHERE ${where} AND stream_position = -1`);
    };
    await swap();
    expect(await verify()).toEqual({ code: 1, first: expect.objectContaining({ broken: true, streamId: 'session-audited', streamPosition: 2 }) });
    await swap();
    expect((await verify()).code).toBe(0);
  } finally {
    await db.end();
  }
});

it("a replay difference or a broken chain fails the stack's stop, so no e2e file can pass with one", async () => {
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    await db.query(`UPDATE read_turns SET model_calls = model_calls + 5 WHERE tenant_id = $1 AND session_id = 'audited'`, [tenant.tenantId]);
    await db.query(
      `UPDATE events SET metadata = '{"correlationId":"forged","protocol":"cli","actor":{"type":"system","id":"nobody"}}' WHERE tenant_id = $1 AND stream_id = 'session-audited' AND stream_position = 1`,
      [tenant.tenantId],
    );
  } finally {
    await db.end();
  }
  const stopping = stack.stop();
  stack = undefined as unknown as HubStack;
  const error = await stopping.then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toMatch(/hash chains broken in audit: .*"streamId":"session-audited","streamPosition":1/);
  expect(error?.message).toMatch(/replay differs from the stored state in audit: .*"model\\":\\"turns\\".*"field\\":\\"model_calls\\"/);
});
