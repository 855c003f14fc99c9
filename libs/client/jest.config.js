// An ES module: this package is "type": "module" (it is published as one).
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

export default {
  ...require('../../jest.preset.js'),
  displayName: 'client',
  rootDir: dirname(fileURLToPath(import.meta.url)),
};
