module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'protocol-a2a',
  rootDir: __dirname,
};
