module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'ingress',
  rootDir: __dirname,
};
