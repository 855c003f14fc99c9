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
# The Postgres nodes run in network namespaces (ip netns, from iproute2); a partition is iptables rules in one.
command -v iptables >/dev/null || need+=(iptables)
command -v ip >/dev/null || need+=(iproute2)
if ((${#need[@]})); then
  [[ $(id -u) == 0 ]] || { echo "[ha] missing ${need[*]}; install them" >&2; exit 1; }
  echo "[ha] installing ${need[*]} from Debian's packages" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
[[ -d node_modules/.bin ]] || npm install --no-audit --no-fund
[[ $(id -u) == 0 ]] || { echo "[ha] needs root: the Postgres nodes run in network namespaces of their own" >&2; exit 1; }
# This run's network (tools/ha/src/node-net.ts): bridge hubha<N> and namespaces hubha<N>-*, 10.213.<N>.0/24.
# Taken down when the run ends however it ends (the suite does it too; this covers a killed Jest).
HA_NET=
for _ in $(seq 50); do
  n=$((2 + RANDOM % 250))
  ip link show "hubha$n" >/dev/null 2>&1 || { HA_NET=$n; break; }
done
[[ -n $HA_NET ]] || { echo "[ha] no free network id for the Postgres nodes' bridge" >&2; exit 1; }
export HA_NET
cleanup() {
  for ns in etcd pg1 pg2; do ip netns del "hubha$HA_NET-$ns" 2>/dev/null || true; done
  ip link del "hubha$HA_NET" 2>/dev/null || true
}
trap cleanup EXIT
# --forceExit: a run that failed in setup must end too (its deadlines name what it waited for).
npx jest -c tools/ha/jest.config.js --runInBand --forceExit "$@"
