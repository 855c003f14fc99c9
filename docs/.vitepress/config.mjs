// The docs site (VitePress, ADR 0045): `npm run docs:build` writes it to dist/docs and fails on a
// link to a page that does not exist. The sidebar is built from the pages present, in the order
// a reader needs them; a page's title is its first `# ` line.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitepress';

const DOCS = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Sidebar groups: what a reader wants to do, then the pages that answer it (missing ones are left out). */
const GROUPS = [
  ['Get started', ['getting-started.md', 'console.md', 'client-library.md', 'examples.md']],
  [
    'Concepts',
    ['concepts/sessions.md', 'concepts/turns.md', 'concepts/approvals.md', 'approval-policy.md', 'concepts/the-log.md', 'concepts/offline-model.md'],
  ],
  [
    'Protocols',
    [
      'protocols/index.md',
      'protocols/transport.md',
      'protocols/http.md',
      'protocols/acp.md',
      'protocols/openharness.md',
      'protocols/zene.md',
      'protocols/openenv.md',
      'protocols/ag-ui.md',
      'protocols/a2a.md',
      'websocket-protocols.md',
    ],
  ],
  ['The console', ['console.md', 'console-overview.md']],
  ['Administration and tenancy', ['administration/index.md', 'administration/schedules.md', 'administration/webhooks.md', 'sign-in-oidc.md']],
  ['Security', ['security/index.md', 'security/tenant-isolation.md', 'security/child-processes.md']],
  [
    'Deploying and scaling',
    ['deploying/index.md', 'deploying/database.md', 'deploying/scaling.md', 'connections.md', 'high-availability.md', 'deploying/performance.md'],
  ],
  ['Operating', ['operating/observability.md', 'operating/backups-and-upgrades.md']],
  ['Reference', ['reference/cli.md', 'reference/settings.md', 'reference/http-api.md']],
  ['Working on the hub', ['contributing/code-layout.md', 'contributing/tests.md', 'contributing/library-choices.md', 'adr/README.md']],
];

/** The page's title: its first level-one heading, without code marks. */
function title(file) {
  const line = readFileSync(join(DOCS, file), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('# '));
  return (line ?? file).replace(/^# /, '').replace(/`/g, '');
}

/** The page's URL as VitePress serves it (README.md and index.md are their folder's page). */
function link(file) {
  return '/' + file.replace(/(^|\/)(README|index)\.md$/, '$1').replace(/\.md$/, '');
}

const sidebar = GROUPS.map(([text, files]) => ({
  text,
  items: files.filter((f) => existsSync(join(DOCS, f))).map((f) => ({ text: title(f), link: link(f) })),
})).filter((g) => g.items.length > 0);

/** Every ADR under "Architecture decisions", numbered as filed. */
const adrs = readdirSync(join(DOCS, 'adr'))
  .filter((f) => /^\d{4}-.*\.md$/.test(f))
  .sort()
  .map((f) => ({ text: `${f.slice(0, 4)} ${title(`adr/${f}`).replace(/^\d+\.?\s*/, '')}`, link: link(`adr/${f}`) }));

export default defineConfig({
  title: 'Harness Hub',
  description: 'One event-sourced hub for AI-agent harness runs',
  outDir: '../dist/docs',
  cacheDir: '../tmp/vitepress-cache',
  cleanUrls: true,
  // The ADR index is the folder's README (it reads well on a code host too); served as /adr/.
  rewrites: { 'adr/README.md': 'adr/index.md' },
  // Links into the repository (sources, specs) are written as code, not links: the site has no
  // copy of them. Every link left is a page of this site and must exist.
  ignoreDeadLinks: false,
  markdown: { languageAlias: { prisma: 'text' } },
  themeConfig: {
    nav: [
      { text: 'Get started', link: '/getting-started' },
      { text: 'Reference', link: '/reference/settings' },
      { text: 'Decisions', link: '/adr/' },
    ],
    sidebar: [...sidebar, { text: 'Architecture decisions', collapsed: true, items: adrs }],
    search: { provider: 'local' },
    outline: 'deep',
  },
});
