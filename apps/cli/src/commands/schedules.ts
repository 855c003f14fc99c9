import { parseArgs } from 'node:util';
import { runApiCommand } from './api-request';

/** `hub schedules` usage: a client of the HTTP API (`/v1/schedules`) with HUB_URL and HUB_API_KEY. */
export const SCHEDULES_USAGE = `usage: hub schedules <command> (HUB_URL, HUB_API_KEY; operators and admins write, viewers read)

  list                             the tenant's schedules, last and next run (one JSON line each)
  create --name N (--cron "C" | --every 2s|5m|1h) --prompt P [--tz Europe/Berlin]
         [--session S | --session-pattern "nightly-{time}"] [--context JSON]
         [--overlap skip|buffer_one|allow_all] [--catch-up 60s] [--start ISO] [--end ISO]
         [--key CLIENT_KEY] [--paused] [--note N]
                                   a schedule; with --key a repeat updates the schedule of that key
  get ID | delete ID
  pause ID [--note N] | resume ID [--note N]
  trigger ID                       run once now
  backfill ID --from ISO --to ISO  run the range's ticks that were never decided
  preview ID [--count 10]          the next fire times
  ticks ID [--limit 100]           decided ticks: scheduled and actual start, outcome, session
`;

export interface SchedulesCliEnv {
  hubUrl: string;
  apiKey: string | undefined;
}

const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `2s`, `5m`, `1h`, `500ms`, `1d` in milliseconds. */
export function durationMs(text: string, flag: string): number {
  const m = DURATION.exec(text.trim());
  if (!m) throw new SchedulesUsageError(`${flag} needs a duration like 2s, 5m, 1h (got "${text.slice(0, 20)}")`);
  return Number(m[1]) * (UNIT_MS[m[2] as string] as number);
}

export class SchedulesUsageError extends Error {}

/** The body of a create from its flags (the API checks everything else and says what is wrong). */
export function createBody(v: Record<string, string | boolean | undefined>): Record<string, unknown> {
  const str = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  if (!str('name') || !str('prompt')) throw new SchedulesUsageError('create needs --name and --prompt');
  let context: unknown;
  if (str('context') !== undefined) {
    try {
      context = JSON.parse(str('context') as string);
    } catch {
      throw new SchedulesUsageError('--context needs a JSON object');
    }
  }
  const run = { prompt: str('prompt'), sessionId: str('session'), sessionPattern: str('session-pattern'), context };
  return {
    clientKey: str('key'),
    name: str('name'),
    cron: str('cron'),
    intervalMs: str('every') === undefined ? undefined : durationMs(str('every') as string, '--every'),
    timeZone: str('tz'),
    startAt: str('start'),
    endAt: str('end'),
    overlap: str('overlap'),
    catchUpWindowMs: str('catch-up') === undefined ? undefined : durationMs(str('catch-up') as string, '--catch-up'),
    paused: v['paused'] === true ? true : undefined,
    note: str('note'),
    run,
  };
}

/** The request one command makes: method, path and body. */
export function requestOf(argv: string[]): { method: string; path: string; body?: unknown } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      cron: { type: 'string' },
      every: { type: 'string' },
      tz: { type: 'string' },
      prompt: { type: 'string' },
      session: { type: 'string' },
      'session-pattern': { type: 'string' },
      context: { type: 'string' },
      overlap: { type: 'string' },
      'catch-up': { type: 'string' },
      start: { type: 'string' },
      end: { type: 'string' },
      key: { type: 'string' },
      paused: { type: 'boolean' },
      note: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      count: { type: 'string' },
      limit: { type: 'string' },
    },
  });
  const [cmd, id] = positionals;
  const one = (sub = '') => {
    if (!id) throw new SchedulesUsageError(`${cmd} needs a schedule ID`);
    return `/v1/schedules/${encodeURIComponent(id)}${sub}`;
  };
  const note = values.note === undefined ? {} : { note: values.note };
  switch (cmd) {
    case 'list':
      return { method: 'GET', path: '/v1/schedules' };
    case 'create':
      return { method: 'POST', path: '/v1/schedules', body: createBody(values) };
    case 'get':
      return { method: 'GET', path: one() };
    case 'delete':
      return { method: 'DELETE', path: one() };
    case 'pause':
      return { method: 'POST', path: one('/pause'), body: note };
    case 'resume':
      return { method: 'POST', path: one('/resume'), body: note };
    case 'trigger':
      return { method: 'POST', path: one('/trigger') };
    case 'backfill':
      if (!values.from || !values.to) throw new SchedulesUsageError('backfill needs --from ISO and --to ISO');
      return { method: 'POST', path: one('/backfill'), body: { from: values.from, to: values.to } };
    case 'preview':
      return { method: 'GET', path: one(`/preview?count=${encodeURIComponent(values.count ?? '10')}`) };
    case 'ticks':
      return { method: 'GET', path: one(`/ticks?limit=${encodeURIComponent(values.limit ?? '100')}`) };
    default:
      throw new SchedulesUsageError(cmd ? `unknown schedules command: ${cmd}` : 'schedules needs a command');
  }
}

/**
 * `hub schedules ...`: prints the API's answer as JSON lines (a list one item a line); exit 0 on
 * success, 1 when the hub refused (its problem+json on stderr), 2 for a usage error, 3 when the
 * hub cannot be reached.
 */
export async function schedules(argv: string[], env: SchedulesCliEnv): Promise<number> {
  return runApiCommand(argv, env, { name: 'schedules', usage: SCHEDULES_USAGE, requestOf, usageError: SchedulesUsageError, listKeys: ['schedules', 'ticks'] });
}
