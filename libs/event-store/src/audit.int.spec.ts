import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { chainHeads, exportLine, readChainPage, verifyChains, verifyExportLines } from './audit';
import { EventStore } from './event-store';
import { createScratchDatabase, type ScratchDatabase } from './testing/scratch-database';

// Issue 15: tamper evidence. Every append chains its events by hash; verify passes on an
// untouched log and names the stream and position of the first broken link after an edit, a
// deletion (in the middle and at the end) and a reordering, done with SQL as a database user
// could. An export carries the hashes and verifies offline.

let db: ScratchDatabase;
let store: EventStore;
const tenantId = randomUUID();
const metadata = { correlationId: 'audit-test', actor: { type: 'api_key' as const, id: 'hub_test', name: 'test' }, protocol: 'transport' as const };

beforeAll(async () => {
  db = await createScratchDatabase('audit');
  store = new EventStore(db.pool);
});
afterAll(() => db?.drop());

async function stream(name: string, n: number): Promise<void> {
  // Several appends, so chains cross append boundaries.
  for (let i = 0; i < n; i += 3) {
    const batch = Array.from({ length: Math.min(3, n - i) }, (_, j) => ({
      type: 'Thing',
      data: { n: i + j, text: `event ${i + j}`, nested: { b: 1, a: [1, 2] } },
      metadata,
    }));
    await store.append(tenantId, name, batch, { expectedVersion: 'any' });
  }
}

it('verify passes on an untouched log: every event hashed, every head matching', async () => {
  await stream('intact', 10);
  const report = await verifyChains(db.pool, { tenantId, streamId: 'intact' });
  expect(report).toEqual({ streams: 1, events: 10, unchained: 0, broken: [] });
  const heads = await chainHeads(db.pool, tenantId);
  expect(heads).toEqual([expect.objectContaining({ streamId: 'intact', version: 10, lastHash: expect.stringMatching(/^[0-9a-f]{64}$/) })]);
});

it('the chain the database computes in the append is the one TypeScript verifies, whatever the text holds', async () => {
  // hub_append hashes in SQL (to_json), verify in TypeScript (JSON.stringify): they must agree on
  // escapes, control characters, quotes, line and paragraph separators, astral characters.
  const awkward = [
    '"quoted" \\ back\\slash /slash',
    'tab\tnew\nline\rcr\bbs\fff',
    '\u0001\u001f\u007f\u0080',
    '\u2028\u2029',
    'café 日本 🚀 𝄞',
    '{"json":"in a string"}',
    '',
  ];
  const events = awkward.map((text, i) => ({
    type: 'Thing\u2028"x"',
    data: { text, [`key ${text}`]: i, list: [text] },
    metadata: { ...metadata, correlationId: text || 'empty' },
  }));
  await store.append(tenantId, 'awkward "stream" 🚀', events, { expectedVersion: 'no_stream', idempotencyKey: randomUUID() });
  await store.append(tenantId, 'awkward "stream" 🚀', events.slice(0, 2), { expectedVersion: events.length });
  expect(await verifyChains(db.pool, { tenantId, streamId: 'awkward "stream" 🚀' })).toEqual({
    streams: 1,
    events: events.length + 2,
    unchained: 0,
    broken: [],
  });
});

it('ids written in upper case chain as the lower case Postgres stores, on both append paths', async () => {
  const upper = randomUUID().toUpperCase();
  await store.append(upper, 'upper', [{ eventId: randomUUID().toUpperCase(), type: 'Thing', data: { n: 1 }, metadata }], { expectedVersion: 'any' });
  await store.append(upper, 'upper', [{ eventId: randomUUID().toUpperCase(), type: 'Thing', data: { n: 2 }, metadata }], {
    expectedVersion: 'any',
    withinTransaction: async () => undefined,
  });
  expect(await verifyChains(db.pool, { tenantId: upper.toLowerCase() })).toEqual({ streams: 1, events: 2, unchained: 0, broken: [] });
  expect((await store.readStream(upper, 'upper')).events.map((e) => e.tenantId)).toEqual([upper.toLowerCase(), upper.toLowerCase()]);
});

it('a log being appended to while it is verified verifies (heads and events are read in one snapshot)', async () => {
  const live = randomUUID();
  const append = (n: number) => store.append(live, 'busy', [{ type: 'Thing', data: { n }, metadata }], { expectedVersion: 'any' });
  await append(0);
  for (let i = 1; i <= 40; i++) {
    const [report] = await Promise.all([verifyChains(db.pool, { tenantId: live }), append(i), append(i + 1000)]);
    expect(report.broken).toEqual([]);
  }
});

it('an edited event breaks its own hash', async () => {
  await stream('edited', 8);
  await db.ownerPool.query(`UPDATE events SET data = '{"n":4,"text":"rewritten"}' WHERE tenant_id = $1 AND stream_id = 'edited' AND stream_position = 5`, [
    tenantId,
  ]);
  const { broken } = await verifyChains(db.pool, { tenantId, streamId: 'edited' });
  expect(broken).toEqual([expect.objectContaining({ streamId: 'edited', streamPosition: 5, reason: 'hash mismatch' })]);
});

it('an edited metadata (the actor) breaks it too', async () => {
  await stream('actor', 4);
  await db.ownerPool.query(
    `UPDATE events SET metadata = '{"correlationId":"audit-test","actor":{"type":"system","id":"nobody"}}' WHERE tenant_id = $1 AND stream_id = 'actor' AND stream_position = 2`,
    [tenantId],
  );
  const { broken } = await verifyChains(db.pool, { tenantId, streamId: 'actor' });
  expect(broken).toEqual([expect.objectContaining({ streamPosition: 2, reason: 'hash mismatch' })]);
});

it('a deleted event is named by the gap it leaves; a deleted last event by the head', async () => {
  await stream('deleted', 8);
  await db.ownerPool.query(`DELETE FROM events WHERE tenant_id = $1 AND stream_id = 'deleted' AND stream_position = 3`, [tenantId]);
  expect((await verifyChains(db.pool, { tenantId, streamId: 'deleted' })).broken).toEqual([
    expect.objectContaining({ streamPosition: 4, reason: 'position gap' }),
  ]);
  await stream('tail', 5);
  await db.ownerPool.query(`DELETE FROM events WHERE tenant_id = $1 AND stream_id = 'tail' AND stream_position = 5`, [tenantId]);
  expect((await verifyChains(db.pool, { tenantId, streamId: 'tail' })).broken).toEqual([
    expect.objectContaining({ streamPosition: 5, reason: 'head mismatch' }),
  ]);
  // Deleting and renumbering to close the gap: the next event's prev_hash names the deleted one.
  await stream('renumbered', 6);
  await db.ownerPool.query(`DELETE FROM events WHERE tenant_id = $1 AND stream_id = 'renumbered' AND stream_position = 2`, [tenantId]);
  await db.ownerPool.query(
    `UPDATE events SET stream_position = stream_position - 1 WHERE tenant_id = $1 AND stream_id = 'renumbered' AND stream_position > 2`,
    [tenantId],
  );
  expect((await verifyChains(db.pool, { tenantId, streamId: 'renumbered' })).broken).toEqual([expect.objectContaining({ streamPosition: 2 })]);
});

it('two events swapped (their positions exchanged) break the chain at the first of them', async () => {
  await stream('swapped', 8);
  const q = (sql: string) => db.ownerPool.query(sql, [tenantId]);
  await q(`UPDATE events SET stream_position = -6 WHERE tenant_id = $1 AND stream_id = 'swapped' AND stream_position = 6`);
  await q(`UPDATE events SET stream_position = 6 WHERE tenant_id = $1 AND stream_id = 'swapped' AND stream_position = 3`);
  await q(`UPDATE events SET stream_position = 3 WHERE tenant_id = $1 AND stream_id = 'swapped' AND stream_position = -6`);
  const { broken } = await verifyChains(db.pool, { tenantId, streamId: 'swapped' });
  expect(broken).toEqual([expect.objectContaining({ streamId: 'swapped', streamPosition: 3 })]);
});

it('the whole tenant at once: each broken stream named, the intact ones not', async () => {
  const report = await verifyChains(db.pool, { tenantId });
  expect(report.broken.map((b) => b.streamId).sort()).toEqual(['actor', 'deleted', 'edited', 'renumbered', 'swapped', 'tail']);
});

it('an export carries the hashes and verifies offline; an edited line is named', async () => {
  await stream('exported', 7);
  const lines = (await readChainPage(db.pool, tenantId, 'exported', 0, 100)).map(exportLine);
  const linesOf = (text: string) => createInterface({ input: Readable.from([text]) });
  expect(await verifyExportLines(linesOf(lines.join('')))).toEqual({ streams: 1, events: 7, unchained: 0, broken: [] });
  const tampered = lines.map((l, i) => (i === 3 ? l.replace('"event 3"', '"event three"') : l)).join('');
  expect((await verifyExportLines(linesOf(tampered))).broken).toEqual([expect.objectContaining({ streamPosition: 4, reason: 'hash mismatch' })]);
  const dropped = lines.filter((_, i) => i !== 2).join('');
  expect((await verifyExportLines(linesOf(dropped))).broken).toEqual([expect.objectContaining({ streamPosition: 4, reason: 'position gap' })]);
});
