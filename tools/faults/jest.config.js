// The fault suite (`npm run test:faults`): its own Postgres and Redis processes, which it kills.
// Kept out of the root Jest run (this folder has no project.json): it is slow, and the cases of a file share its servers.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'faults',
  rootDir: __dirname,
  testMatch: ['**/*.fault.spec.ts'],
  testTimeout: 120_000,
};
