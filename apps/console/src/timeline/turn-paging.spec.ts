import { lastPage, pageBefore, requestsBefore, streamEnd, type ReadEvents } from './turn-paging';

/** A stream of `turns` turns, each a request and `per - 1` other events; a reader over it that counts reads. */
function stream(turns: number, per = 5) {
  const events = Array.from({ length: turns * per }, (_, i) => ({ type: i % per === 0 ? 'TurnRequested' : 'TextDelta', streamPosition: i + 1 }));
  let reads = 0;
  const read: ReadEvents = async (after, limit) => {
    reads++;
    const page = events.filter((e) => e.streamPosition > after).slice(0, limit);
    const last = page.at(-1)?.streamPosition;
    return { events: page, next: last !== undefined && last < events.length ? last : null };
  };
  return { events, read, reads: () => reads, requestAt: (turn: number) => (turn - 1) * per + 1 };
}

describe('turn paging', () => {
  it('finds the end of a stream in a logarithmic number of reads', async () => {
    for (const n of [0, 1, 2, 3, 7, 8, 999, 5000]) {
      const s = stream(n, 1);
      expect(await streamEnd(s.read)).toBe(n);
      expect(s.reads()).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(n + 2)) + 2);
    }
  });

  it('reads back the last requests before a position, oldest first', async () => {
    const s = stream(300);
    expect(await requestsBefore(s.read, s.requestAt(300), 3)).toEqual([s.requestAt(297), s.requestAt(298), s.requestAt(299)]);
    expect(await requestsBefore(s.read, s.requestAt(3) + 1, 10)).toEqual([s.requestAt(1), s.requestAt(2), s.requestAt(3)]);
    expect(await requestsBefore(s.read, 1, 10)).toEqual([]);
  });

  it('jumps to the last page as paging forward would reach it, and pages back from it', async () => {
    const s = stream(1003);
    const last = await lastPage(s.read, 1003, 10);
    // Turns 1001–1003: the page starts just before turn 1001's request.
    expect(last).toEqual({ after: s.requestAt(1001) - 1, page: 101 });
    expect(s.reads()).toBeLessThan(40);
    expect(await pageBefore(s.read, last, 10)).toEqual({ after: s.requestAt(991) - 1, page: 100 });
    expect(await pageBefore(s.read, { after: s.requestAt(11) - 1, page: 2 }, 10)).toEqual({ after: 0, page: 1 });
    expect(await lastPage(stream(1000).read, 1000, 10)).toEqual({ after: stream(1000).requestAt(991) - 1, page: 100 });
    expect(await lastPage(s.read, 7, 10)).toEqual({ after: 0, page: 1 });
  });
});
