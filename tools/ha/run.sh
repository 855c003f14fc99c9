#!/usr/bin/env bash
# The HA suite: Postgres under Patroni + etcd behind HAProxy, Redis under Sentinel, all real
# processes it starts (and kills) itself. Installs Debian's packages when missing (as root).
set -euo pipefail
cd "$(dirname "$0")/../.."
need=()
[[ -x /usr/lib/postgresql/15/bin/initdb ]] || need+=(postgresql-15)
command -v redis-server >/dev/null || need+=(redis-server)
command -v redis-sentinel >/dev/null || need+=(redis-sentinel)
command -v patroni >/dev/null || need+=(patroni)
command -v etcd >/dev/null || need+=(etcd-server)
command -v haproxy >/dev/null || need+=(haproxy)
command -v pgbouncer >/dev/null || need+=(pgbouncer)
if ((${#need[@]})); then
  [[ $(id -u) == 0 ]] || { echo "[ha] missing ${need[*]}; install them" >&2; exit 1; }
  echo "[ha] installing ${need[*]} from Debian's packages" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
[[ -d node_modules/.bin ]] || npm install --no-audit --no-fund
# --forceExit: a run that failed in setup must end too (its deadlines name what it waited for).
exec npx jest -c tools/ha/jest.config.js --runInBand --forceExit "$@"
