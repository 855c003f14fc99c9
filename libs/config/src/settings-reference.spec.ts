import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KNOWN_SETTINGS } from './schemas';

// Issue 30: the settings reference (docs/reference/settings.md) names every variable some app's
// schema reads, and no variable none reads. A new setting fails here until its row is written.
const PAGE = join(__dirname, '../../../docs/reference/settings.md');

/** The variables the page's tables document: each backticked name in a row's first cell. */
function documented(markdown: string): Set<string> {
  const names = new Set<string>();
  for (const line of markdown.split('\n')) {
    const firstCell = /^\|([^|]*)\|/.exec(line)?.[1] ?? '';
    for (const m of firstCell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(m[1]);
  }
  return names;
}

const onPage = documented(readFileSync(PAGE, 'utf8'));

it('documents every setting the config schemas read', () => {
  const missing = KNOWN_SETTINGS.filter((name) => !onPage.has(name));
  expect(missing).toEqual([]);
});

it('documents no setting that no schema reads', () => {
  const known = new Set(KNOWN_SETTINGS);
  expect([...onPage].filter((name) => !known.has(name))).toEqual([]);
});

it('reads the rows it checks (a page without tables would pass the checks above vacuously)', () => {
  expect(onPage.size).toBeGreaterThan(40);
  expect(onPage.has('DATABASE_URL')).toBe(true);
});
