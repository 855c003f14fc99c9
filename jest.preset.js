// Shared Jest setup: swc for speed (with decorator metadata, which NestJS DI needs) and
// the tsconfig path aliases, so specs import libs exactly as the apps do.
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace('/', '\\/')}$`] = path.join(__dirname, target);
}

const fs = require('node:fs');

/**
 * Packages whose `.js` files are ES modules ("type": "module"), e.g. the AI SDK 7 and its
 * dependencies. Node 24 loads them with require() in the apps, but Jest's module runtime can do
 * that only under --experimental-vm-modules; swc turns them into CommonJS for the test runtime
 * instead, so every way of starting Jest works. Read from node_modules, so a new ESM-only
 * dependency needs no edit here.
 */
function esmPackages(dir = path.join(__dirname, 'node_modules')) {
  const found = [];
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      for (const sub of fs.readdirSync(path.join(dir, name))) if (isEsm(path.join(dir, name, sub))) found.push(`${name}/${sub}`);
    } else if (isEsm(path.join(dir, name))) found.push(name);
  }
  return found;
}

function isEsm(pkgDir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).type === 'module';
  } catch {
    return false;
  }
}

const ESM_ONLY = esmPackages().map((n) => n.replace(/[.+]/g, '\\$&'));

module.exports = {
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.m?js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
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
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  testMatch: ['**/*.spec.ts'],
  // Integration and e2e specs share one Postgres and Redis; each file isolates itself
  // (own database, own queue prefix), so files may run side by side.
  testTimeout: 30000,
};
