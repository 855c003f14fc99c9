import { durabilityWarningFromInfo } from './preflight';

// Issue 30: the boot warning's reading of INFO, over the text Redis 7 answers (CRLF lines, the
// neighbouring aof_* and maxmemory* fields present). preflight.int.spec.ts checks the same against
// a real server switched with CONFIG SET; production-build.e2e.spec.ts, that both apps print it.

function info(fields: Record<string, string>): string {
  const persistence = {
    loading: '0',
    rdb_changes_since_last_save: '12',
    rdb_last_bgsave_status: 'ok',
    aof_enabled: '0',
    aof_rewrite_in_progress: '0',
    aof_rewrite_scheduled: '0',
    aof_last_write_status: 'ok',
  };
  const memory = { used_memory: '1048576', maxmemory: '0', maxmemory_human: '0B', maxmemory_policy: 'noeviction' };
  const section = (name: string, f: Record<string, string>) =>
    `# ${name}\r\n${Object.entries(f)
      .filter(([k]) => fields[k] !== 'absent')
      .map(([k, v]) => `${k}:${fields[k] ?? v}\r\n`)
      .join('')}`;
  return `${section('Persistence', persistence)}\n${section('Memory', memory)}`;
}

const TAIL = '; the reconciler re-schedules them from the log';

it('says nothing for AOF on and noeviction', () => {
  expect(durabilityWarningFromInfo(info({ aof_enabled: '1' }))).toBeNull();
});

it('names AOF off, an evicting policy, or both, in that order', () => {
  expect(durabilityWarningFromInfo(info({}))).toBe(`Redis may lose queued turns: AOF is off (appendonly no)${TAIL}`);
  expect(durabilityWarningFromInfo(info({ aof_enabled: '1', maxmemory_policy: 'volatile-lru' }))).toBe(
    `Redis may lose queued turns: maxmemory-policy is volatile-lru, not noeviction${TAIL}`,
  );
  expect(durabilityWarningFromInfo(info({ maxmemory_policy: 'allkeys-lfu' }))).toBe(
    `Redis may lose queued turns: AOF is off (appendonly no); maxmemory-policy is allkeys-lfu, not noeviction${TAIL}`,
  );
});

it('reads values from CRLF lines whole (no CR kept, a neighbouring aof_* field not taken for aof_enabled)', () => {
  expect(durabilityWarningFromInfo(info({ aof_enabled: '0', aof_rewrite_scheduled: '1' }))).toContain('AOF is off');
  expect(durabilityWarningFromInfo(info({ aof_enabled: '1', maxmemory_policy: 'noeviction' }))).toBeNull();
});

it('a Redis that does not report its eviction policy is judged on AOF alone', () => {
  expect(durabilityWarningFromInfo(info({ aof_enabled: '1', maxmemory_policy: 'absent' }))).toBeNull();
});
