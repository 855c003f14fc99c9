#!/usr/bin/env node
// Builds the publishable @harness-hub/client into libs/client/dist/: one ES module bundled by
// rolldown (the workspace code it uses, the domain's applyOps and eventsource-parser, inlined;
// `ws` and `standardwebhooks` stay imports, declared in its package.json), and the .d.ts files
// from tsc. Fails when a declaration still names a workspace alias (@hub/*), which a user's
// compiler could not resolve.
//
//   node libs/client/scripts/build.mjs
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const HERE = dirname(fileURLToPath(import.meta.url));
const PKG = resolve(HERE, '..');
const ROOT = resolve(PKG, '../..');
const OUT = join(PKG, 'dist');

async function bundle() {
  const build = await rolldown({
    input: join(PKG, 'src/index.ts'),
    external: ['ws', 'standardwebhooks'],
    platform: 'neutral',
    tsconfig: false,
    // The one thing the client takes from the domain at run time is applyOps (frames.ts): the
    // bundle reads that file alone, not the domain's whole index (zod schemas, every event).
    resolve: { alias: { '@hub/domain': join(ROOT, 'libs/domain/src/harness-state/apply-ops.ts') } },
  });
  await build.write({ file: join(OUT, 'index.js'), format: 'esm', sourcemap: true });
  await build.close();
}

async function declarations() {
  const tmp = await mkdtemp(join(tmpdir(), 'hub-client-dts-'));
  const tsconfig = join(tmp, 'tsconfig.json');
  await writeFile(
    tsconfig,
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.base.json'),
      compilerOptions: {
        declaration: true,
        emitDeclarationOnly: true,
        noEmit: false,
        outDir: join(tmp, 'out'),
        rootDir: ROOT,
        sourceMap: false,
        types: [],
        // As in the bundle: the domain's applyOps file alone, not its whole index.
        paths: { '@hub/domain': [join(ROOT, 'libs/domain/src/harness-state/apply-ops.ts')] },
      },
      files: [join(PKG, 'src/index.ts')],
    }),
  );
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { stdio: 'inherit' });
  const types = join(OUT, 'types');
  await cp(join(tmp, 'out/libs/client/src'), types, { recursive: true });
  await rm(tmp, { recursive: true, force: true });
  for (const f of await readdir(types, { recursive: true })) {
    if (!f.endsWith('.d.ts')) continue;
    // ES module declarations name files as Node resolves them (nodenext): './http.js', not './http'.
    const text = (await readFile(join(types, f), 'utf8')).replace(/((?:from|import\()\s*')(\.{1,2}\/[^']+?)(?<!\.js)'/g, "$1$2.js'");
    if (/from '@hub\//.test(text)) throw new Error(`${f}: a declaration names a workspace alias (@hub/*); keep such types out of the public API`);
    await writeFile(join(types, f), text);
  }
}

const started = Date.now();
await rm(OUT, { recursive: true, force: true });
await bundle();
await declarations();
process.stderr.write(`client: built ${OUT} in ${Date.now() - started} ms\n`);
