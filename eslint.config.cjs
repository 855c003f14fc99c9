// Lint rules that carry the architecture: pure libs (domain, protocol/*) may not import
// frameworks, I/O or Node built-ins, nor read the clock or randomness — those arrive as data.
const nx = require('@nx/eslint-plugin');
const tseslint = require('typescript-eslint');

const IMPURE = [
  '@nestjs/*',
  '@prisma/*',
  'prisma',
  'bullmq',
  'ioredis',
  'pg',
  '@opentelemetry/*',
  'pino',
  'ws',
  'node:*',
  'fs',
  'path',
  'crypto',
  'child_process',
  'http',
  'net',
  'os',
];

module.exports = [
  { ignores: ['**/node_modules/**', '**/dist/**', '**/generated/**', '.nx/**', 'tmp/**'] },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            { sourceTag: 'purity:pure', onlyDependOnLibsWithTags: ['purity:pure'], bannedExternalImports: IMPURE },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
          ],
        },
      ],
      'no-empty': ['error', { allowEmptyCatch: false }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'CallExpression[callee.property.name="only"]', message: 'No .only in committed tests.' }],
    },
  },
  {
    files: ['libs/domain/src/**/*.ts', 'libs/protocol/**/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      // Node built-ins are not "external projects" to the Nx rule, so ban them here too.
      'no-restricted-imports': [
        'error',
        {
          paths: require('node:module').builtinModules.map((name) => ({ name, message: 'Pure libs do no I/O: no Node built-ins.' })),
          patterns: [{ group: ['node:*'], message: 'Pure libs do no I/O: no Node built-ins.' }],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'NewExpression[callee.name="Date"][arguments.length=0]', message: 'Pure code takes time from the command metadata.' },
        { selector: 'MemberExpression[object.name="Date"][property.name="now"]', message: 'Pure code takes time from the command metadata.' },
        { selector: 'MemberExpression[object.name="Math"][property.name="random"]', message: 'Pure code takes ids from the command metadata.' },
        { selector: 'MemberExpression[object.name="process"]', message: 'Pure code reads no environment.' },
      ],
    },
  },
  {
    // process.env is read in libs/config only (examples/ are users' programs: they read their own;
    // prisma.config.ts is the Prisma CLI's, not the hub's).
    files: ['**/*.ts'],
    ignores: ['libs/config/**', 'libs/testing/**', '**/*.spec.ts', 'tools/**', 'examples/**', 'prisma.config.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through @hub/config.' }],
    },
  },
  // Last: turns off every stylistic rule Prettier owns (`npm run format`, checked in lint).
  require('eslint-config-prettier/flat'),
];
