#!/usr/bin/env node
// The production build: every TypeScript source of the apps and libs (specs left out) compiled
// by swc to CommonJS under dist/, same layout, with the @hub/* path aliases rewritten to relative
// requires. `bin/hub` runs it when HUB_RUN_FROM=dist (the Docker image), so a process starts
// without compiling TypeScript. Compiled, not bundled: see docs/adr/0017-production-build.md.
//
//   node tools/scripts/build.mjs [--out dist]
import { cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const swc = require('@swc/core');
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { compilerOptions } = require(join(ROOT, 'tsconfig.base.json'));

const outArg = process.argv.indexOf('--out');
const OUT = resolve(ROOT, outArg > 0 ? process.argv[outArg + 1] : 'dist');

const SWC_OPTIONS = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    // NestJS's dependency injection reads the constructor parameter types that decorator
    // metadata records: the reason this is swc (or tsc) and not esbuild.
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    baseUrl: ROOT,
    paths: compilerOptions.paths,
  },
  module: { type: 'commonjs' },
  sourceMaps: true,
};

async function sources(dir) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') found.push(...(await sources(path)));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts')) {
      found.push(path);
    } else if (entry.name.endsWith('.json') && path.includes(`${join('src', '')}`)) {
      found.push(path);
    }
  }
  return found;
}

async function compile(file) {
  const rel = relative(ROOT, file);
  const target = join(OUT, rel.replace(/\.ts$/, '.js'));
  await mkdir(dirname(target), { recursive: true });
  if (file.endsWith('.json')) return cp(file, target);
  const { code, map } = await swc.transformFile(file, { ...SWC_OPTIONS, filename: file, sourceFileName: relative(dirname(target), file) });
  await writeFile(target, `${code}\n//# sourceMappingURL=${target.split('/').pop()}.map\n`);
  await writeFile(`${target}.map`, map);
}

async function main() {
  const started = Date.now();
  await rm(OUT, { recursive: true, force: true });
  const roots = ['apps', 'libs'].map((d) => join(ROOT, d));
  const files = (await Promise.all(roots.map((r) => sources(r)))).flat().filter((f) => f.includes(`${join('/src', '')}`));
  let done = 0;
  const queue = [...files];
  const progress = setInterval(() => process.stderr.write(`build: ${done}/${files.length} files\n`), 2000);
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
        await compile(f);
        done++;
      }
    }),
  );
  clearInterval(progress);
  await writeFile(join(OUT, 'BUILD.json'), `${JSON.stringify({ builtAt: new Date().toISOString(), files: files.length })}\n`);
  process.stderr.write(`build: ${files.length} files compiled to ${relative(ROOT, OUT) || '.'}/ in ${Date.now() - started} ms\n`);
}

main().catch((e) => {
  process.stderr.write(`build failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
