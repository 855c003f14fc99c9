// Builds the console (Vite) into apps/console/dist. `--if-stale` builds only when a source is
// newer than the last build, so `bin/hub up` and the test script pay for a build once per change.
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const stamp = join(root, 'dist', '.built');
const inputs = [
  join(root, 'src'),
  join(root, 'index.html'),
  join(root, 'vite.config.mts'),
  join(root, '../../libs/domain/src'),
  join(root, '../../libs/client/src'),
  join(root, '../../package-lock.json'),
];

function newest(path) {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return readdirSync(path).reduce((m, name) => (name === 'e2e' ? m : Math.max(m, newest(join(path, name)))), s.mtimeMs);
}

const ifStale = process.argv.includes('--if-stale');
if (ifStale && existsSync(stamp) && statSync(stamp).mtimeMs >= Math.max(...inputs.map(newest))) process.exit(0);
const started = Date.now();
// Vite takes React's build (production or development) from NODE_ENV when it is set, and Jest
// sets it to `test`: the console is always built for production.
process.env.NODE_ENV = 'production';
const { build } = await import('vite');
await build({ configFile: join(root, 'vite.config.mts') });
writeFileSync(stamp, `${new Date().toISOString()}\n`);
process.stderr.write(`console built in ${Date.now() - started} ms (apps/console/dist)\n`);
