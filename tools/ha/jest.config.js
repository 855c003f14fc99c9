// The HA suite (`npm run test:ha`): Patroni, etcd, HAProxy, Redis Sentinel, all real processes of
// this machine's Debian packages, which it kills. Kept out of the root Jest run (no project.json):
// it is slow and serial.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'ha',
  rootDir: __dirname,
  testMatch: ['**/*.ha.spec.ts'],
  testTimeout: 180_000,
};
