import { sessionStreamId, type CommandMetadata, type HubEvent, type Recorded } from '@hub/domain';
import { CommandHandler } from '@hub/sessions';
import { InMemoryEventLog } from '@hub/testing';
import { OfflineProvider } from '../providers/offline';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../providers/types';
import { createBuiltinRegistry } from '../tools/builtin';
import type { FlushPolicy } from './model-step';
import { RunningTurns } from './ports';
import { TurnRunner } from './turn-runner';

const TENANT = '11111111-1111-4111-8111-111111111111';
const SESSION = 's1';
const noop = { scheduleTurn: async () => undefined, scheduleApprovalExpiry: async () => undefined, signalCancel: async () => undefined };

async function runTurn(prompt: string, provider: ModelProvider, flush: FlushPolicy, log = new InMemoryEventLog(), now?: () => number) {
  const meta: CommandMetadata = {
    commandId: 'c1',
    tenantId: TENANT,
    now: '2026-01-01T00:00:00.000Z',
    correlationId: 'corr',
    actor: { type: 'api_key', id: 'k' },
    protocol: 'transport',
  };
  await new CommandHandler(log, noop).handle({ type: 'SubmitTurn', sessionId: SESSION, turnId: 't1', prompt, context: {}, busyPolicy: 'enqueue' }, meta);
  const runner = new TurnRunner({
    log,
    scheduler: noop,
    running: new RunningTurns(),
    provider,
    tools: createBuiltinRegistry(),
    worker: { type: 'worker', id: 'w' },
    maxSteps: 8,
    approvalTtlMs: 0,
    flush,
    now,
  });
  const outcome = await runner.run({
    tenantId: TENANT,
    sessionId: SESSION,
    turnId: 't1',
    trace: { correlationId: 'corr' },
    causationId: 'job',
    finalAttempt: false,
  });
  return { outcome, events: log.all(TENANT, sessionStreamId(SESSION)) };
}

const deltas = (events: Recorded<HubEvent>[]) => events.filter((e) => e.type === 'TextDelta').map((e) => e.data as { text: string; offset: number });

function expectExactOffsets(ds: { text: string; offset: number }[]): void {
  let offset = 0;
  for (const d of ds) {
    expect(d.offset).toBe(offset);
    offset += d.text.length;
  }
}

describe('model step: streamed text is recorded in flushes', () => {
  it('records a 300-word answer at zero delay in at most 3 TextDelta events, offsets exact', async () => {
    const { outcome, events } = await runTurn('long answer 300', new OfflineProvider({ delayMs: 0 }), { maxChars: 4096, maxDelayMs: 50 });
    expect(outcome).toBe('completed');
    const ds = deltas(events);
    expect(ds.length).toBeGreaterThan(0);
    expect(ds.length).toBeLessThanOrEqual(3);
    const completed = events.find((e) => e.type === 'ModelCallCompleted')?.data as { text: string };
    expect(ds.map((d) => d.text).join('')).toBe(completed.text);
    expectExactOffsets(ds);
  });

  it('a busy process (the clock runs while a ready answer streams in) still writes it in at most 3 deltas', async () => {
    let t = 0;
    const slowClock = () => (t += 10);
    const { events } = await runTurn(
      'long answer 300',
      new OfflineProvider({ delayMs: 0 }),
      { maxChars: 4096, maxDelayMs: 50 },
      new InMemoryEventLog(),
      slowClock,
    );
    expect(deltas(events).length).toBeLessThanOrEqual(3);
    expectExactOffsets(deltas(events));
  });

  it('splits by the size cap, each delta no bigger than the cap plus one chunk', async () => {
    const { events } = await runTurn('long answer 100', new OfflineProvider({ delayMs: 0 }), { maxChars: 100, maxDelayMs: 60_000 });
    const ds = deltas(events);
    const total = ds.reduce((n, d) => n + d.text.length, 0);
    expect(ds.length).toBeGreaterThan(2);
    expect(ds.length).toBeLessThanOrEqual(Math.ceil(total / 100) + 1);
    for (const d of ds) expect(d.text.length).toBeLessThan(100 + 40);
    expectExactOffsets(ds);
  });

  it('writes pending text once its window passes, even while the model is silent', async () => {
    const log = new InMemoryEventLog();
    let seenWhileSilent: string[] = [];
    const pausing: ModelProvider = {
      name: 'offline',
      model: 'offline',
      async *stream(_req: ModelRequest): AsyncIterable<ModelStreamPart> {
        yield { type: 'text-delta', text: 'first ' };
        yield { type: 'text-delta', text: 'words ' };
        await new Promise((r) => setTimeout(r, 300));
        seenWhileSilent = deltas(log.all(TENANT, sessionStreamId(SESSION))).map((d) => d.text);
        yield { type: 'text-delta', text: 'later' };
        yield { type: 'finish', finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } };
      },
    };
    const { events } = await runTurn('hi', pausing, { maxChars: 4096, maxDelayMs: 50 }, log);
    expect(seenWhileSilent).toEqual(['first words ']);
    expect(deltas(events).map((d) => d.text)).toEqual(['first words ', 'later']);
    expectExactOffsets(deltas(events));
  });

  it('goes on reading the model while a window is being appended: slow appends do not stretch the answer', async () => {
    const log = new InMemoryEventLog();
    const gaps: number[] = [];
    const appending: number[] = [];
    let last = 0;
    const paced: ModelProvider = {
      name: 'offline',
      model: 'offline',
      async *stream(_req: ModelRequest): AsyncIterable<ModelStreamPart> {
        for (let i = 0; i < 30; i++) {
          await new Promise((r) => setTimeout(r, 10));
          const now = performance.now();
          if (last) gaps.push(now - last);
          last = now;
          yield { type: 'text-delta', text: `w${i} ` };
        }
        yield { type: 'finish', finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 30, totalTokens: 31 } };
      },
    };
    // Each append takes 150 ms (a crowded database); ours are never two at once.
    let inFlight = 0;
    log.beforeAppend = async () => {
      appending.push(++inFlight);
      await new Promise((r) => setTimeout(r, 150));
      inFlight--;
    };
    const { outcome, events } = await runTurn('hi', paced, { maxChars: 4096, maxDelayMs: 50 }, log);
    expect(outcome).toBe('completed');
    // Read at the model's pace: no pause between two parts waited for an append (150 ms).
    expect(Math.max(...gaps)).toBeLessThan(120);
    expect(Math.max(...appending)).toBe(1);
    const ds = deltas(events);
    expect(ds.length).toBeGreaterThan(1);
    expect(ds.map((d) => d.text).join('')).toBe(Array.from({ length: 30 }, (_, i) => `w${i} `).join(''));
    expectExactOffsets(ds);
  });

  it("writes a call's first words at its first window, and the rest at the crowd's wider one", async () => {
    const log = new InMemoryEventLog();
    const written: number[] = [];
    const t0 = performance.now();
    log.beforeAppend = () => void written.push(performance.now() - t0);
    const paced: ModelProvider = {
      name: 'offline',
      model: 'offline',
      async *stream(_req: ModelRequest): AsyncIterable<ModelStreamPart> {
        for (let i = 0; i < 40; i++) {
          await new Promise((r) => setTimeout(r, 10));
          yield { type: 'text-delta', text: `w${i} ` };
        }
        yield { type: 'finish', finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 40, totalTokens: 41 } };
      },
    };
    const { events } = await runTurn('hi', paced, { maxChars: 4096, maxDelayMs: 250, firstDelayMs: 30 }, log);
    const ds = deltas(events);
    // The submit's append, then the first words within about the first window, then wider ones.
    const textWrites = written.slice(1);
    expect(textWrites[0]).toBeLessThan(150);
    expect(ds.length).toBeGreaterThanOrEqual(2);
    expect(ds.length).toBeLessThanOrEqual(4);
    expectExactOffsets(ds);
  });
});
