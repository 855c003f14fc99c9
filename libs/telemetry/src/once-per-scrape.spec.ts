import { oncePerScrape } from './metrics';

describe('oncePerScrape', () => {
  it('answers every gauge of one scrape from one read, and reads again at the next scrape', async () => {
    let reads = 0;
    const shared = oncePerScrape(async () => ++reads, 50);
    expect(await Promise.all([shared(), shared()])).toEqual([1, 1]);
    expect(await shared()).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    expect(await shared()).toBe(2);
    expect(reads).toBe(2);
  });
});
