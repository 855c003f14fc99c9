module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'protocol-input',
  rootDir: __dirname,
};
