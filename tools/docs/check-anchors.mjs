// After `vitepress build`: every link within the built site that names a place on a page
// (`page#anchor`, `#anchor`) points at an id that page has. VitePress's own check covers pages,
// not anchors, and the anchors are what a moved section breaks.
//
//   node tools/docs/check-anchors.mjs [SITE_DIR]     (default dist/docs; exit 1 naming each broken one)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SITE = process.argv[2] ?? join(fileURLToPath(new URL('.', import.meta.url)), '../../dist/docs');

/** Every HTML page of the site, by the path it is served at (`/reference/cli`, `/adr/`). */
function pages(dir, found = new Map()) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) pages(path, found);
    else if (name.endsWith('.html'))
      found.set(
        '/' +
          relative(SITE, path)
            .replace(/index\.html$/, '')
            .replace(/\.html$/, ''),
        readFileSync(path, 'utf8'),
      );
  }
  return found;
}

const site = pages(SITE);
const ids = new Map([...site].map(([url, html]) => [url, new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]))]));
const broken = [];
let checked = 0;
for (const [url, html] of site) {
  for (const [, href] of html.matchAll(/\shref="([^"]*#[^"]+)"/g)) {
    if (/^[a-z]+:/.test(href)) continue; // another site
    const resolved = new URL(href, `http://site${url}`);
    const anchors = ids.get(resolved.pathname.replace(/\.html$/, ''));
    if (!anchors) {
      if (!resolved.pathname.startsWith('/assets/')) broken.push(`${url}: ${href} (no such page)`);
      continue;
    }
    checked += 1;
    if (!anchors.has(decodeURIComponent(resolved.hash.slice(1)))) broken.push(`${url}: ${href}`);
  }
}
if (broken.length > 0) {
  process.stderr.write(`links to an anchor their page does not have:\n  ${[...new Set(broken)].join('\n  ')}\n`);
  process.exit(1);
}
process.stderr.write(`${site.size} pages, ${checked} anchor links, each resolves\n`);
