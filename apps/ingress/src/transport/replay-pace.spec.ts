import type { HubEvent, Recorded } from '@hub/domain';
import { MAX_REPLAY_GAP_MS, paced, replayGapMs, replaySpeedOf } from './replay-pace';

const q = (query: string) => replaySpeedOf(new URLSearchParams(query));

describe('replaySpeedOf', () => {
  it('is undefined for a live socket and the speed for a replay (1 by default)', () => {
    expect(q('session=s')).toBeUndefined();
    expect(q('replay=1')).toBe(1);
    expect(q('replay=1&speed=2.5')).toBe(2.5);
    expect(q('replay=1&speed=1000')).toBe(1000);
  });

  it.each([
    'replay=1&speed=0',
    'replay=1&speed=-1',
    'replay=1&speed=1001',
    'replay=1&speed=abc',
    'replay=1&speed=',
    'replay=1&speed=Infinity',
    'replay=true',
    'replay=0',
    'speed=2',
  ])('is null (refuse) for %s', (query) => expect(q(query)).toBeNull());
});

describe('replayGapMs', () => {
  const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();

  it('is the recorded distance divided by the speed', () => {
    expect(replayGapMs(at(0), at(400), 1)).toBe(400);
    expect(replayGapMs(at(0), at(400), 4)).toBe(100);
  });

  it('caps an idle stretch at MAX_REPLAY_GAP_MS before scaling, and never goes negative', () => {
    expect(replayGapMs(at(0), at(3_600_000), 1)).toBe(MAX_REPLAY_GAP_MS);
    expect(replayGapMs(at(0), at(3_600_000), 10)).toBe(MAX_REPLAY_GAP_MS / 10);
    expect(replayGapMs(at(500), at(0), 1)).toBe(0);
  });
});

describe('paced', () => {
  const event = (i: number, ms: number) => ({ globalPosition: i, createdAt: new Date(Date.UTC(2026, 0, 1) + ms).toISOString() }) as Recorded<HubEvent>;
  async function* source(events: Recorded<HubEvent>[]) {
    yield* events;
  }

  it('yields every event, the later ones no sooner than their scaled distance from the first', async () => {
    const started = performance.now();
    const seen: number[] = [];
    for await (const e of paced(source([event(1, 0), event(2, 100), event(3, 300)]), 2, new AbortController().signal)) seen.push(e.globalPosition);
    expect(seen).toEqual([1, 2, 3]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('counts the first gap from startAt', async () => {
    const started = performance.now();
    const seen: number[] = [];
    for await (const e of paced(source([event(2, 200)]), 1, new AbortController().signal, event(1, 0).createdAt)) seen.push(e.globalPosition);
    expect(seen).toEqual([2]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
  });

  it('stops waiting when the signal aborts', async () => {
    const ac = new AbortController();
    const seen: number[] = [];
    setTimeout(() => ac.abort(), 20);
    const run = (async () => {
      for await (const e of paced(source([event(1, 0), event(2, 4_000)]), 1, ac.signal)) seen.push(e.globalPosition);
    })();
    await expect(run).rejects.toThrow(/abort/i);
    expect(seen).toEqual([1]);
  });
});
