module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'schedules',
  rootDir: __dirname,
};
