import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// The Grafana dashboard under deploy/ reads only metrics the hub exports: every hub_* series in
// its queries is an instrument or gauge declared in the code (OpenTelemetry names with dots,
// which the Prometheus exporter writes with underscores and a _total suffix on counters).

const ROOT = join(__dirname, '..', '..', '..');
const dashboard = JSON.parse(readFileSync(join(ROOT, 'deploy/grafana/harness-hub.json'), 'utf8')) as { panels: Array<{ targets: Array<{ expr: string }> }> };

function sources(dir: string): string {
  return readdirSync(dir, { withFileTypes: true })
    .map((e) =>
      e.isDirectory()
        ? e.name === 'node_modules'
          ? ''
          : sources(join(dir, e.name))
        : e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts')
          ? readFileSync(join(dir, e.name), 'utf8')
          : '',
    )
    .join('\n');
}

const code = ['libs/telemetry/src', 'apps/ingress/src', 'apps/worker/src'].map((d) => sources(join(ROOT, d))).join('\n');
const declared = new Set([...code.matchAll(/'(hub\.[a-z_.]+)'/g)].map((m) => (m[1] ?? '').replace(/\./g, '_')));

it('every series the dashboard queries is declared in the code', () => {
  const used = new Set(dashboard.panels.flatMap((p) => p.targets.flatMap((t) => [...t.expr.matchAll(/\b(hub_[a-z_]+)/g)].map((m) => m[1] ?? ''))));
  expect(used.size).toBeGreaterThan(8);
  for (const series of used) {
    const base = series.replace(/_(total|bucket|count|sum)$/, '');
    expect({ series, declared: declared.has(base) }).toEqual({ series, declared: true });
  }
});

it("charts every metric of issue 17's list", () => {
  const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
  const charted = (series: string, by: string[] = []) =>
    exprs.some((e) => e.includes(series) && by.every((label) => new RegExp(`by \\([^)]*\\b${label}\\b`).test(e)));
  const wanted: Array<[string, string[]]> = [
    ['hub_turns_started_total', ['protocol']],
    ['hub_turns_finished_total', ['protocol', 'outcome', 'code']],
    ['hub_turn_duration_seconds_bucket', []],
    ['hub_turn_first_delta_seconds_bucket', []],
    ['hub_queue_jobs', ['queue']],
    ['hub_queue_wait_seconds_bucket', ['queue']],
    ['hub_sessions_active', ['protocol']],
    ['hub_sockets_open', ['protocol']],
    ['hub_approvals_pending', []],
    ['hub_approvals_oldest_pending_age_seconds', []],
    ['hub_events_appended_total', []],
    ['hub_event_append_duration_seconds_bucket', []],
    ['hub_projection_lag_seconds', ['projection']],
    ['hub_model_tokens_total', ['tenant']],
  ];
  expect(wanted.filter(([series, by]) => !charted(series, by)).map(([series]) => series)).toEqual([]);
});
