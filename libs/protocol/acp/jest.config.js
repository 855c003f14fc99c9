module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'protocol-acp',
  rootDir: __dirname,
};
