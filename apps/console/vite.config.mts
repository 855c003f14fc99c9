import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// Served by ingress under /console (apps/ingress/src/console). No dev server or plugin is needed
// for the build: Vite's own transform compiles TSX with React's automatic runtime.
export default defineConfig({
  root: here('.'),
  base: '/console/',
  logLevel: 'warn',
  resolve: {
    alias: {
      '@hub/domain': here('../../libs/domain/src/index.ts'),
      // The client library's sources (its package exports a build the workspace does not keep).
      '@harness-hub/client': here('../../libs/client/src/index.ts'),
    },
  },
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: here('dist'),
    emptyOutDir: true,
    // No inline modulepreload polyfill: the page is served with a CSP that forbids inline script.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
      // React Query marks its modules "use client" for server-component bundlers; meaningless here.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
