import type { Actor } from '../api/types';

/** "12 s", "4 min", "3 h", "2 d": how long ago (or, negative, how far ahead) a moment is. */
export function span(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}

export function ago(iso: string, now: number): string {
  return `${span(now - Date.parse(iso))} ago`;
}

export function deadline(iso: string | null, now: number): string {
  if (!iso) return 'no deadline';
  const left = Date.parse(iso) - now;
  return left > 0 ? `due in ${span(left)}` : `overdue by ${span(left)}`;
}

const PROTOCOL_NAMES: Record<string, string> = {
  internal: 'HTTP API',
  transport: 'transport',
  openharness: 'OpenHarness',
  zene: 'Zene',
  openenv: 'OpenEnv',
  acp: 'ACP',
  a2a: 'A2A',
  cli: 'CLI',
};

export function protocolName(p: string | null | undefined): string {
  return p ? (PROTOCOL_NAMES[p] ?? p) : 'unknown';
}

export function actorName(a: Actor | null | undefined): string {
  if (!a) return 'someone';
  if (a.type === 'api_key') return `${a.name ?? a.id}${a.role ? ` (${a.role})` : ''}`;
  // A person signed in with the identity provider (issue 24): their name and email as the provider gave them.
  if (a.type === 'person') return `${a.name ?? a.sub ?? a.id}${a.email ? ` <${a.email}>` : ''}${a.role ? ` (${a.role})` : ''}`;
  return a.type === 'worker' ? 'the hub (deadline passed)' : (a.name ?? a.type);
}

export function time(iso: string): string {
  return new Date(iso).toLocaleString();
}
