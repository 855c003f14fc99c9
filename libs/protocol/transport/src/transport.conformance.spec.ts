import { applyOps, DeltaOperation, foldHarness, HubCommand, initialHarnessView, type HubEvent, type Recorded } from '@hub/domain';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { decode } from './decode';
import { encode, snapshot } from './encode';
import { ClientMessage, DeltaMessage, ServerMessage } from './schema';

// Walks every fixture: ours (the spec's own examples plus our additions) and the upstream
// assistant-ui ones whose op shapes the spec borrows.

const OWN = path.resolve(__dirname, 'fixtures');
// src → transport → protocol → libs → repo → the shared folder beside the repo.
const UPSTREAM = path.resolve(__dirname, '../../../../../shared/fixtures/assistant-transport');

const read = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));
const jsonFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => [f, path.join(dir, f)] as const);

let ids = 0;
const ctx = { sessionId: 's-1', newId: () => `generated-${++ids}` };

describe.each(jsonFiles(path.join(OWN, 'client')))('client fixture %s', (_name, file) => {
  const raw = readFileSync(file, 'utf8');

  it('is a valid ClientMessage and decodes into canonical commands', () => {
    expect(ClientMessage.safeParse(JSON.parse(raw)).success).toBe(true);
    const result = decode(raw, ctx);
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    expect(result.commands.length).toBe((JSON.parse(raw) as ClientMessage).commands.length);
    for (const command of result.commands) expect(HubCommand.parse(command)).toEqual(command);
  });

  it('round-trips through JSON', () => {
    const message = ClientMessage.parse(JSON.parse(raw));
    expect(ClientMessage.parse(JSON.parse(JSON.stringify(message)))).toEqual(message);
  });
});

describe('invalid client messages', () => {
  const cases = read(path.join(OWN, 'invalid-client-messages.json')) as { name: string; raw: string; code: string }[];
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const result = decode(c.raw, ctx);
    expect(result.ok ? 'ok' : result.error.code).toBe(c.code);
  });
});

describe.each(jsonFiles(path.join(OWN, 'server')))('server fixture %s', (_name, file) => {
  it('validates against ServerMessage and round-trips through JSON', () => {
    const message = ServerMessage.parse(read(file));
    expect(message).toEqual(read(file));
    expect(ServerMessage.parse(JSON.parse(JSON.stringify(message)))).toEqual(message);
  });
});

describe('the spec example ops', () => {
  const ops = ['spec-set-status', 'spec-append-text', 'spec-set-message-status'].map((n) => DeltaOperation.parse(read(path.join(OWN, 'ops', `${n}.json`))));

  it('apply in order to a client state', () => {
    const before = { status: 'idle', messages: [{ id: 'm1', role: 'user', content: 'Hello', status: 'pending' }] };
    expect(applyOps(before, ops)).toEqual({
      status: 'running',
      messages: [{ id: 'm1', role: 'user', content: 'Hello world', status: 'complete' }],
    });
  });

  it('make a valid delta frame', () => {
    expect(DeltaMessage.safeParse({ type: 'delta', operations: ops, cursor: 1 }).success).toBe(true);
  });
});

describe('upstream assistant-transport fixtures', () => {
  it('op-set replaces the value at its path', () => {
    const op = DeltaOperation.parse(read(path.join(UPSTREAM, 'op-set.json')));
    expect(applyOps({ status: 'running', other: 1 }, [op])).toEqual({ status: 'completed', other: 1 });
  });

  it('op-append-text appends to the string at its path', () => {
    const op = DeltaOperation.parse(read(path.join(UPSTREAM, 'op-append-text.json')));
    expect(applyOps({ message: 'Hello' }, [op])).toEqual({ message: 'Hello World' });
  });

  it('the update-state operations of the SSE golden file are valid ops', () => {
    const chunks = readFileSync(path.join(UPSTREAM, 'python-encoder.sse'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice('data: '.length)) as { type: string; operations?: unknown[] });
    const updates = chunks.filter((c) => c.type === 'update-state').flatMap((c) => c.operations ?? []);
    expect(updates.length).toBeGreaterThan(0);
    const ops = updates.map((o) => DeltaOperation.parse(o));
    expect(applyOps({ status: 'idle', messages: [] }, ops)).toEqual({ status: 'running', messages: [] });
  });
});

describe('encode', () => {
  const events: HubEvent[] = [
    { type: 'SessionOpened', data: { sessionId: 's-1', openedVia: 'transport' } },
    {
      type: 'TurnRequested',
      data: { turnId: 't1', userMessageId: 't1:u', prompt: 'Hi', context: {}, busyPolicy: 'enqueue' },
    },
    { type: 'TurnStarted', data: { turnId: 't1' } },
    { type: 'MessageStarted', data: { turnId: 't1', messageId: 't1:m', role: 'assistant' } },
    { type: 'TextDelta', data: { turnId: 't1', messageId: 't1:m', callId: 'c', offset: 0, text: 'Hello' } },
    { type: 'MessageCompleted', data: { turnId: 't1', messageId: 't1:m' } },
  ];
  const recorded = events.map((e, i): Recorded => ({
    ...e,
    eventId: `e${i}`,
    tenantId: 'tenant',
    streamId: 'session-s-1',
    streamPosition: i,
    globalPosition: 100 + i,
    createdAt: '2025-01-01T00:00:00.000Z',
    metadata: { correlationId: 'corr' },
  }));

  it('every frame is a valid ServerMessage that round-trips, and a snapshot resumes from any cursor', () => {
    let view = initialHarnessView();
    const frames = recorded.flatMap((event) => {
      const out = encode(event, view);
      view = out.view;
      return out.frames;
    });
    for (const frame of frames) {
      expect(ServerMessage.parse(JSON.parse(JSON.stringify(frame)))).toEqual(frame);
    }
    // A client that got the snapshot at cursor 102 and then the later deltas ends where we do.
    const resumedAt = snapshot(foldHarness(events.slice(0, 3)), 102);
    const later = frames.filter((f): f is DeltaMessage => f.type === 'delta' && f.cursor > resumedAt.cursor);
    const client = later.reduce((state, f) => applyOps(state, f.operations), resumedAt.state);
    expect(client).toEqual(view.state);
  });
});
