module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'sessions',
  rootDir: __dirname,
};
