module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'protocol-ag-ui',
  rootDir: __dirname,
};
