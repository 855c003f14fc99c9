module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'protocol-zene',
  rootDir: __dirname,
};
