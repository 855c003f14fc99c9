// One Jest run across every project (what `npm test` runs); each project keeps its own
// jest.config.js for `nx run <project>:test`.
const { readdirSync, existsSync } = require('node:fs');
const { join } = require('node:path');

function projectConfigs(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'node_modules') continue;
    const p = join(dir, entry.name);
    if (existsSync(join(p, 'project.json')) && existsSync(join(p, 'jest.config.js'))) found.push(join(p, 'jest.config.js'));
    else found.push(...projectConfigs(p));
  }
  return found;
}

module.exports = {
  projects: [...projectConfigs(join(__dirname, 'apps')), ...projectConfigs(join(__dirname, 'libs'))],
  reporters: ['default', '<rootDir>/tools/scripts/summary-reporter.js'],
  testTimeout: 30000,
};
