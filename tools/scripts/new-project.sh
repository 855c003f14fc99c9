#!/usr/bin/env bash
# Usage: tools/scripts/new-project.sh <root> <name> <tags-json>
# Writes the four files every Nx project here has: project.json, tsconfig.json,
# jest.config.js and README.md (if missing).
set -euo pipefail
root=$1 name=$2 tags=$3
depth=$(awk -F/ '{print NF}' <<<"$root"); up=$(printf '../%.0s' $(seq 1 "$depth"))
mkdir -p "$root/src"
cat > "$root/project.json" <<JSON
{
  "name": "$name",
  "\$schema": "${up}node_modules/nx/schemas/project-schema.json",
  "sourceRoot": "$root/src",
  "projectType": "$([[ $root == apps/* ]] && echo application || echo library)",
  "tags": $tags,
  "targets": {
    "lint": { "command": "eslint $root", "cache": true },
    "typecheck": { "command": "tsc -p $root/tsconfig.json --noEmit", "cache": true },
    "test": { "command": "jest --config $root/jest.config.js --passWithNoTests=false" }
  }
}
JSON
cat > "$root/tsconfig.json" <<JSON
{
  "extends": "${up}tsconfig.base.json",
  "compilerOptions": { "types": ["node", "jest"], "noEmit": true },
  "include": ["src/**/*.ts"]
}
JSON
cat > "$root/jest.config.js" <<JS
module.exports = {
  ...require('${up}jest.preset.js'),
  displayName: '$name',
  rootDir: __dirname,
};
JS
