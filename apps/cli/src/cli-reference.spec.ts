import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './paths';

// Issue 30: the CLI reference (docs/reference/cli.md) names every command and flag the CLI
// defines. The definitions are read from the CLI's own sources (main.ts's dispatch and switch,
// its parseArgs options, each sub-CLI's switch and options, bin/hub's launcher cases), not from a
// list kept here: a new command or flag fails this spec until the page names it.
const source = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const PAGE = source('docs/reference/cli.md');

const matches = (text: string, re: RegExp) => [...text.matchAll(re)].map((m) => m[1] as string);
/** `case 'x':` labels of a file's switch statements. */
const cases = (text: string) => matches(text, /case '([a-z][a-z -]*)':/g);
/** Keys of the file's parseArgs `options` objects (`name: { type: … }`, quoted or not). */
const options = (text: string) => matches(text, /'?([a-z][a-z-]*)'?: \{ type: '(?:string|boolean)'/g);

const main = source('apps/cli/src/main.ts');
const SUB_CLIS = { schedules: 'apps/cli/src/commands/schedules.ts', webhooks: 'apps/cli/src/commands/webhooks.ts', idp: 'apps/cli/src/commands/idp.ts' };

/** Every command line the CLI answers, as `hub …`. */
const commands = [
  ...cases(main),
  ...matches(main, /argv\[0\] === '([a-z-]+)'/g),
  ...matches(source('bin/hub'), /^ {2}([a-z]+)\) shift;/gm),
  ...Object.entries(SUB_CLIS).flatMap(([name, file]) => cases(source(file)).map((sub) => `${name} ${sub}`)),
];
const flags = [
  ...options(main),
  ...matches(source('apps/cli/src/commands/limit-flags.ts').split('LIMIT_FLAGS = {')[1]?.split('}')[0] ?? '', /'?([a-z][a-z-]*)'?:/g),
  ...Object.values(SUB_CLIS).flatMap((file) => options(source(file))),
];

it('finds the definitions it checks (a parser that found none would pass vacuously)', () => {
  expect(commands).toEqual(
    expect.arrayContaining(['up', 'migrate', 'tenant create', 'chat', 'host', 'acp', 'ingress', 'worker', 'schedules create', 'webhooks rotate']),
  );
  expect(flags).toEqual(expect.arrayContaining(['port', 'approve', 'turns-per-minute', 'cron', 'overlap-seconds']));
});

it('names every command in the CLI reference', () => {
  expect([...new Set(commands)].filter((c) => !PAGE.includes(`hub ${c}`))).toEqual([]);
});

it('names every flag in the CLI reference', () => {
  expect([...new Set(flags)].filter((f) => f !== 'help' && !PAGE.includes(`--${f}`))).toEqual([]);
});
