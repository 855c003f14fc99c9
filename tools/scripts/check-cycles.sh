#!/usr/bin/env bash
# No import cycles in apps and libs (issue 30), type-only imports included: a cycle is a layering
# mistake whether or not it survives to runtime. Prisma's generated client is not ours (excluded).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(npx dpdm --no-warning --no-tree --tsconfig tsconfig.base.json --exclude 'generated|node_modules' \
  --exit-code circular:1 'apps/*/src/**/*.ts' 'apps/*/src/**/*.tsx' 'libs/**/src/**/*.ts' 'tools/**/*.ts' 2>&1) || {
  printf '%s\n' "$out" | sed -n '/Circular Dependencies/,$p' >&2
  echo "import cycles found (tools/scripts/check-cycles.sh): give the shared types or constants a file of their own" >&2
  exit 1
}
echo "import cycles: none" >&2
