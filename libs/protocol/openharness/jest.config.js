module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'protocol-openharness',
  rootDir: __dirname,
};
