module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'protocol-openenv',
  rootDir: __dirname,
};
