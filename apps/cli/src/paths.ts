import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * The repository (or image) root: the nearest directory above this file that holds
 * `prisma/migrations`. This file runs from apps/cli/src in a checkout and from
 * dist/apps/cli/src in the production build.
 */
function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(resolve(dir, 'prisma/migrations'))) return dir;
    if (dirname(dir) === dir) return resolve(__dirname, '../../..');
  }
}

export const REPO_ROOT = findRoot(__dirname);
export const MIGRATIONS_DIR = resolve(REPO_ROOT, 'prisma/migrations');
export const HUB_BIN = resolve(REPO_ROOT, 'bin/hub');
/** Local state of `hub up`: data directories of services it started, the demo key. */
export const STATE_DIR = resolve(REPO_ROOT, '.hub');
