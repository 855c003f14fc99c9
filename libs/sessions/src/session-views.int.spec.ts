import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { SESSION_VIEW_VERSION, sessionStreamId, type CommandMetadata, type EventMetadata, type HubEvent } from '@hub/domain';
import { EventStore, SnapshotStore } from '@hub/event-store';
import { createTestDatabase, type TestDatabase } from '@hub/testing';
import { CommandHandler } from './command-handler';
import { SessionViews } from './session-views';

const EVERY = 100;
const noFollowUps = { scheduleTurn: async () => undefined, signalCancel: async () => undefined };
const eventMeta: EventMetadata = { correlationId: 'corr', causationId: 'seed', actor: { type: 'worker', id: 'w' }, protocol: 'transport' };

describe('command decisions read a snapshot and the events after it', () => {
  let db: TestDatabase;
  let pool: Pool;
  /** The owner's, to look at stored snapshots behind the stores' back (row-level security hides them from the apps' role). */
  let owner: Pool;
  let store: EventStore;
  let snapshots: SnapshotStore;
  /** Event rows the event store returned to readers, and snapshot rows read. */
  const reads = { eventRows: 0, snapshotRows: 0 };

  beforeAll(async () => {
    db = await createTestDatabase({ prefix: 'session_views' });
    pool = new Pool({ connectionString: db.url, max: 4 });
    owner = new Pool({ connectionString: db.ownerUrl, max: 2 });
    store = new EventStore(pool);
    snapshots = new SnapshotStore(pool);
  });
  afterAll(async () => {
    await Promise.all([pool.end(), owner.end()]);
    await db.drop();
  });

  /** The event store and snapshot store as the worker wires them, with every row read counted. */
  function handler(tenantId: string) {
    const log = {
      readStream: async (t: string, s: string, opts?: { fromVersion?: number }) => {
        const r = await store.readStream<HubEvent>(t, s, opts);
        reads.eventRows += r.events.length;
        return r;
      },
      append: (
        t: string,
        s: string,
        events: { type: string; data: unknown; metadata: EventMetadata }[],
        opts: { expectedVersion: number; idempotencyKey?: string },
      ) => store.append<HubEvent>(t, s, events as never, opts),
    };
    const counted = {
      read: async (t: string, s: string, v: number, part?: 'all' | 'decision') => {
        const r = await snapshots.read(t, s, v, part);
        if (r) reads.snapshotRows++;
        return r;
      },
      // As the worker and ingress wire it: the snapshot and its tail in one read.
      readWithTail: async (t: string, s: string, v: number, part?: 'all' | 'decision') => {
        const r = await snapshots.readWithTail<HubEvent>(t, s, v, part);
        if (r.snapshot) reads.snapshotRows++;
        reads.eventRows += r.events.length;
        return r;
      },
      write: snapshots.write.bind(snapshots),
    };
    let n = 0;
    const meta = (): CommandMetadata => ({
      commandId: randomUUID(),
      tenantId,
      now: '2026-01-01T00:00:00.000Z',
      correlationId: `c${++n}`,
      actor: { type: 'api_key', id: 'k' },
      protocol: 'transport',
    });
    const views = new SessionViews(log, counted, EVERY);
    return { views, commands: new CommandHandler(log, noFollowUps, views), meta };
  }

  /** A session of `turns` answered turns of many deltas each, recorded the way a runner records them. */
  async function longSession(tenantId: string, sessionId: string, turns: number): Promise<number> {
    const { commands, meta } = handler(tenantId);
    const streamId = sessionStreamId(sessionId);
    for (let t = 0; t < turns; t++) {
      const turnId = `t${t}`;
      const res = await commands.handle({ type: 'SubmitTurn', sessionId, turnId, prompt: `long answer ${t}`, context: {}, busyPolicy: 'reject' }, meta());
      expect(res.ok).toBe(true);
      const callId = `${turnId}:c0`;
      const deltas = Array.from({ length: 60 }, (_, i) => ({
        type: 'TextDelta',
        data: { turnId, messageId: `${turnId}:m`, callId, offset: i * 5, text: 'word ' },
      }));
      const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
      const turn = [
        { type: 'MessageStarted', data: { turnId, messageId: `${turnId}:m`, role: 'assistant' } },
        { type: 'ModelCallStarted', data: { turnId, callId, step: 0, provider: 'offline', model: 'm', messageCount: 2, toolNames: [] } },
        ...deltas,
        { type: 'ModelCallCompleted', data: { turnId, callId, step: 0, text: 'word '.repeat(60), toolCalls: [], finishReason: 'stop', usage } },
        { type: 'MessageCompleted', data: { turnId, messageId: `${turnId}:m` } },
        { type: 'TurnCompleted', data: { turnId, text: 'word '.repeat(60), stopReason: 'end_turn', usage } },
      ];
      const version = await store.streamVersion(tenantId, streamId);
      await store.append(
        tenantId,
        streamId,
        turn.map((e) => ({ ...e, metadata: eventMeta })),
        { expectedVersion: version },
      );
    }
    return store.streamVersion(tenantId, streamId);
  }

  it('a decision on a session of thousands of events reads at most the snapshot plus the events after it', async () => {
    const tenant = randomUUID();
    const total = await longSession(tenant, 'long', 40);
    expect(total).toBeGreaterThan(2500);
    // Nobody has written this session's snapshot yet (events were appended directly): the first
    // whole load rebuilds it.
    await handler(tenant).views.load(tenant, sessionStreamId('long'));
    // Another process (nothing of this session in memory): the snapshot's decision part and the tail.
    const { commands, meta } = handler(tenant);
    reads.eventRows = 0;
    reads.snapshotRows = 0;
    const res = await commands.handle({ type: 'SubmitTurn', sessionId: 'long', turnId: 'next', prompt: 'hello', context: {}, busyPolicy: 'reject' }, meta());
    expect(res.ok).toBe(true);
    expect(reads.snapshotRows).toBe(1);
    expect(reads.eventRows).toBeLessThan(EVERY);
    // The same process again: what it kept of the session, and only the events after it.
    reads.eventRows = 0;
    reads.snapshotRows = 0;
    await commands.handle({ type: 'CancelTurn', sessionId: 'long', reason: 'user' }, meta());
    expect(reads.snapshotRows).toBe(0);
    expect(reads.eventRows).toBe(0);
    // And it decides as a whole read would: the turn is known, a repeat decides nothing.
    const again = await handler(tenant).commands.handle(
      { type: 'SubmitTurn', sessionId: 'long', turnId: 't3', prompt: 'long answer 3', context: {}, busyPolicy: 'reject' },
      meta(),
    );
    expect(again).toEqual({ ok: true, events: [], duplicate: true });
  });

  it('keeps the tail short while the session grows: a snapshot is written once EVERY events follow the last', async () => {
    const tenant = randomUUID();
    const { commands, meta } = handler(tenant);
    await longSession(tenant, 'growing', 10);
    reads.eventRows = 0;
    await commands.handle({ type: 'CancelTurn', sessionId: 'growing', reason: 'user' }, meta());
    expect(reads.eventRows).toBeLessThanOrEqual(2 * EVERY);
    const { rows } = await owner.query('SELECT version, fold_version FROM session_snapshots WHERE tenant_id = $1', [tenant]);
    expect(rows).toHaveLength(1);
    expect(rows[0].fold_version).toBe(SESSION_VIEW_VERSION);
  });

  it('ignores a snapshot of another fold version and rebuilds it', async () => {
    const tenant = randomUUID();
    const streamId = sessionStreamId('old');
    const total = await longSession(tenant, 'old', 5);
    await snapshots.write(tenant, streamId, { version: total, foldVersion: SESSION_VIEW_VERSION + 1000, state: '{"stale": true}' });
    reads.eventRows = 0;
    const { views } = handler(tenant);
    const loaded = await views.load(tenant, streamId);
    expect(reads.eventRows).toBe(total);
    expect(loaded.view.session.status).toBe('idle');
    const { rows } = await owner.query('SELECT version, fold_version FROM session_snapshots WHERE tenant_id = $1 AND stream_id = $2', [tenant, streamId]);
    expect(rows).toEqual([{ version: total, fold_version: SESSION_VIEW_VERSION }]);
  });

  it('reads the snapshot and its tail in one statement exactly as the two reads give them', async () => {
    const tenant = randomUUID();
    const streamId = sessionStreamId('fused');
    const twoReads = async (part: 'all' | 'decision', t = tenant) => {
      const snapshot = await snapshots.read(t, streamId, SESSION_VIEW_VERSION, part);
      return { snapshot, ...(await store.readStream<HubEvent>(t, streamId, { fromVersion: snapshot?.version ?? 0 })) };
    };
    const both = async (part: 'all' | 'decision', t = tenant) => {
      const fused = await snapshots.readWithTail<HubEvent>(t, streamId, SESSION_VIEW_VERSION, part);
      expect(fused).toEqual(await twoReads(part, t));
      return fused;
    };
    // No stream, no snapshot.
    expect(await both('all')).toEqual({ snapshot: null, version: 0, events: [] });
    // A stream without a snapshot (one turn: fewer than EVERY events, so a load writes none): every event.
    const total = await longSession(tenant, 'fused', 1);
    const { view } = await handler(tenant).views.load(tenant, streamId);
    expect(await both('all')).toMatchObject({ snapshot: null, version: total });
    expect((await both('all')).events).toHaveLength(total);
    // A snapshot and a tail after it, whole and as its decision part.
    await handler(tenant).views.save(tenant, streamId, total - 5, view);
    const withTail = await both('all');
    expect(withTail.snapshot?.version).toBe(total - 5);
    expect(withTail.events.map((e) => e.streamPosition)).toEqual([total - 4, total - 3, total - 2, total - 1, total]);
    expect((await both('decision')).snapshot?.state).not.toBe(withTail.snapshot?.state);
    // A snapshot at the stream's end: no events, the state still there.
    await handler(tenant).views.save(tenant, streamId, total, view);
    expect(await both('all')).toMatchObject({ snapshot: { version: total }, version: total, events: [] });
    // Another tenant's read of the same id sees neither.
    expect(await both('all', randomUUID())).toEqual({ snapshot: null, version: 0, events: [] });
  });

  it("never reads another tenant's snapshot of the same session id", async () => {
    const a = randomUUID();
    const b = randomUUID();
    const total = await longSession(a, 'shared', 3);
    await handler(a).views.save(a, sessionStreamId('shared'), total, (await handler(a).views.load(a, sessionStreamId('shared'))).view);
    expect(await snapshots.read(a, sessionStreamId('shared'), SESSION_VIEW_VERSION)).not.toBeNull();
    expect(await snapshots.read(b, sessionStreamId('shared'), SESSION_VIEW_VERSION)).toBeNull();
    const loaded = await handler(b).views.load(b, sessionStreamId('shared'));
    expect(loaded.view.session.status).toBe('new');
  });
});
