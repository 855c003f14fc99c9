#!/usr/bin/env bash
# The whole check, as CI runs it: services up, dependencies installed, lint, typecheck, tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/scripts/ensure-services.sh
[[ -d node_modules/.bin ]] || npm install --no-audit --no-fund
echo "== lint" >&2
npx nx run-many -t lint --output-style=static
echo "== typecheck" >&2
npx nx run-many -t typecheck --output-style=static
echo "== test" >&2
npx jest -c jest.config.js --maxWorkers=2 "$@"
