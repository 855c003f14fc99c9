import { resolve } from 'node:path';

/** The repository root (this file is apps/cli/src/paths.ts). */
export const REPO_ROOT = resolve(__dirname, '../../..');
export const MIGRATIONS_DIR = resolve(REPO_ROOT, 'prisma/migrations');
export const HUB_BIN = resolve(REPO_ROOT, 'bin/hub');
/** Local state of `hub up`: data directories of services it started, the demo key. */
export const STATE_DIR = resolve(REPO_ROOT, '.hub');
