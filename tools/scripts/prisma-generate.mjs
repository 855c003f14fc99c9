// Runs `prisma generate` at install time. The Prisma CLI insists on locating its schema
// engine even though generate only needs the bundled WebAssembly; where the engine cannot be
// downloaded (offline machines) any existing file satisfies that check.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY || !existsSync(env.PRISMA_SCHEMA_ENGINE_BINARY)) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = fileURLToPath(import.meta.url);
}
const res = spawnSync(process.execPath, ['node_modules/prisma/build/index.js', 'generate'], {
  env,
  stdio: ['ignore', 'inherit', 'inherit'],
});
if (res.status !== 0) {
  console.error('prisma generate failed (exit %s)', res.status);
  process.exit(res.status ?? 1);
}
