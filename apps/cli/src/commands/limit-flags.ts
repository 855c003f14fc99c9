/** The limit flags of `hub tenant limits`, by the limit each sets. */
export const LIMIT_FLAGS = {
  'turns-per-minute': 'turnsPerMinute',
  'concurrent-turns': 'concurrentTurns',
  'tokens-per-day': 'tokensPerDay',
  sessions: 'sessions',
  'open-sockets': 'openSockets',
  'event-bytes-per-day': 'eventBytesPerDay',
  'retention-days': 'retentionDays',
} as const;
export type LimitFlag = keyof typeof LIMIT_FLAGS;

/** The limit flags as `parseArgs` options: each takes a value. */
export const LIMIT_OPTIONS = Object.fromEntries(Object.keys(LIMIT_FLAGS).map((f) => [f, { type: 'string' }])) as { [F in LimitFlag]: { type: 'string' } };

/** The limit flags among parsed options. */
export function limitFlagsOf(values: Partial<Record<LimitFlag, string | boolean | undefined>>): Partial<Record<LimitFlag, string>> {
  return Object.fromEntries((Object.keys(LIMIT_FLAGS) as LimitFlag[]).map((f) => [f, typeof values[f] === 'string' ? values[f] : undefined]));
}
