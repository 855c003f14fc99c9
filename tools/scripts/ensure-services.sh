#!/usr/bin/env bash
# Makes sure Postgres and Redis answer for the tests: uses DATABASE_URL / REDIS_URL when set,
# else the local services, starting them (and installing Debian's packages, as root) if needed.
set -euo pipefail

say() { echo "[services] $*" >&2; }
as_root() { [[ $(id -u) == 0 ]]; }

pg_ok() { pg_isready -q -d "${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}" 2>/dev/null; }
redis_ok() {
  local url=${REDIS_URL:-redis://127.0.0.1:6379}
  command -v redis-cli >/dev/null && [[ $(redis-cli -u "$url" ping 2>/dev/null) == PONG ]]
}

apt_install() {
  as_root || { say "missing $*; install them or set DATABASE_URL / REDIS_URL"; exit 1; }
  say "installing $* from Debian's packages"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! pg_ok; then
  command -v pg_ctlcluster >/dev/null || apt_install postgresql postgresql-client
  ver=$(ls /etc/postgresql | sort -n | tail -1)
  say "starting PostgreSQL $ver"
  pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
  # the tests connect as postgres over TCP without a password
  hba=/etc/postgresql/$ver/main/pg_hba.conf
  if ! grep -q "^host all all 127.0.0.1/32 trust" "$hba" 2>/dev/null; then
    as_root && { sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"; pg_ctlcluster --skip-systemctl-redirect "$ver" main reload; }
  fi
  for _ in $(seq 1 30); do pg_ok && break; sleep 1; done
  pg_ok || { say "PostgreSQL does not answer"; exit 1; }
fi

if ! redis_ok; then
  command -v redis-server >/dev/null || apt_install redis-server redis-tools
  say "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 1 30); do redis_ok && break; sleep 0.5; done
  redis_ok || { say "Redis does not answer"; exit 1; }
fi
say "PostgreSQL and Redis answer"
