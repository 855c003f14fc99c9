module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'console',
  rootDir: __dirname,
  // The console's screens are checked in a real browser (src/e2e); pure logic has unit specs beside it.
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
