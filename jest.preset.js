// Shared Jest setup: swc for speed (with decorator metadata, which NestJS DI needs) and
// the tsconfig path aliases, so specs import libs exactly as the apps do.
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace('/', '\\/')}$`] = path.join(__dirname, target);
}

module.exports = {
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
  moduleNameMapper,
  testMatch: ['**/*.spec.ts'],
  // Integration and e2e specs share one Postgres and Redis; each file isolates itself
  // (own database, own queue prefix), so files may run side by side.
  testTimeout: 30000,
};
