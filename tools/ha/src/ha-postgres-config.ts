import { join } from 'node:path';

// The configuration files HaPostgres writes: one Patroni file per node and HAProxy's.

const PG_BIN = '/usr/lib/postgresql/15/bin';

export function patroniConfig(dir: string, node: { name: string; host: string; pgPort: number; restPort: number }, etcd: string, subnet: string): string {
  const { name, host, pgPort, restPort } = node;
  // Short TTL and loop so a failover shows within seconds here; production keeps Patroni's
  // defaults (ttl 30, loop_wait 10): docs/high-availability.md says what that means for the hub.
  return `scope: hub-ha
name: ${name}
restapi:
  listen: ${host}:${restPort}
  connect_address: ${host}:${restPort}
etcd3:
  hosts: ${etcd}
bootstrap:
  dcs:
    ttl: 20
    loop_wait: 2
    retry_timeout: 5
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        max_connections: 300
        wal_log_hints: "on"
        # No longer than retry_timeout. A partitioned primary's fast shutdown (Patroni's offline
        # demotion) waits for its WAL sender to the standby it cannot reach, 60 s by default;
        # Patroni 3.0.2 (Debian 12) meanwhile begins a second demotion from its main loop, the two
        # start Postgres twice, and the node never rejoins (docs/high-availability.md, the partition).
        # With it, the sender is gone before the demotion begins and the stop takes under a second.
        wal_sender_timeout: 5s
        fsync: "off"
  initdb:
    - encoding: UTF8
  pg_hba:
    - local all all trust
    - host replication replicator ${subnet} trust
    - host all all ${subnet} trust
postgresql:
  listen: ${host}:${pgPort}
  connect_address: ${host}:${pgPort}
  data_dir: ${join(dir, name)}
  # After a partition the old primary may have written WAL the new one never got: pg_rewind,
  # and a fresh clone if that fails, bring it back as a standby.
  remove_data_directory_on_rewind_failure: true
  remove_data_directory_on_diverged_timelines: true
  bin_dir: ${PG_BIN}
  pgpass: ${join(dir, `${name}.pgpass`)}
  authentication:
    superuser: { username: postgres, password: postgres }
    replication: { username: replicator, password: replicator }
    rewind: { username: postgres, password: postgres }
  parameters:
    unix_socket_directories: ${dir}
`;
}

export function haproxyConfig(port: number, nodes: { name: string; host: string; pgPort: number; restPort: number }[], replicaPort: number): string {
  // Patroni's documented HAProxy setup: a TCP listener whose servers are health-checked on
  // Patroni's REST API; only the leader answers GET /primary with 200. A server marked down has
  // its sessions cut, so clients reconnect to the new primary instead of hanging on the old.
  return `global
  maxconn 1000
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
listen postgres_primary
  bind 127.0.0.1:${port}
  option httpchk GET /primary
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
${nodes.map((n) => `  server ${n.name} ${n.host}:${n.pgPort} check port ${n.restPort}`).join('\n')}
# The standbys, for the reads that may lag (HUB_READ_DATABASE_URL): Patroni answers GET /replica
# with 200 on a running replica only.
listen postgres_replicas
  bind 127.0.0.1:${replicaPort}
  option httpchk GET /replica
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
${nodes.map((n) => `  server ${n.name} ${n.host}:${n.pgPort} check port ${n.restPort}`).join('\n')}
`;
}
