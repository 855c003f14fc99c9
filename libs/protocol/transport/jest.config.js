module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'protocol-transport',
  rootDir: __dirname,
};
