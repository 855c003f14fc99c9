#!/usr/bin/env bash
# The fault suite: starts its own Postgres and Redis (so it may kill them), so it needs their
# server binaries, not running services. Installs Debian's packages when missing (as root).
set -euo pipefail
cd "$(dirname "$0")/../.."
need=()
[[ -x /usr/lib/postgresql/15/bin/initdb ]] || need+=(postgresql-15)
command -v redis-server >/dev/null || need+=(redis-server)
if ((${#need[@]})); then
  [[ $(id -u) == 0 ]] || { echo "[faults] missing ${need[*]}; install them" >&2; exit 1; }
  echo "[faults] installing ${need[*]} from Debian's packages" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
[[ -d node_modules/.bin ]] || npm install --no-audit --no-fund
# Hub processes run the production build (as in tools/scripts/test-all.sh): each start skips
# compiling TypeScript, so a restarted worker or ingress is back sooner.
node tools/scripts/build.mjs
export HUB_RUN_FROM=dist
# Its two files side by side: each has its own Postgres, Redis and hub, and the schedules file
# mostly waits out its minute of ticks. Measured on this box: 177 s one after the other, 109 s so.
# The cases inside a file stay serial (they share that file's servers).
exec npx jest -c tools/faults/jest.config.js --maxWorkers=2 "$@"
