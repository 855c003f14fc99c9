module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'console',
  rootDir: __dirname,
  // The console's own code is checked in a real browser (src/e2e); its .tsx sources are for Vite.
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
