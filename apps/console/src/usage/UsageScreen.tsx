import { useMemo, useState } from 'react';
import type { HubApi } from '../api/client';
import { UsageChart } from './UsageChart';
import { count, turnsOf, usageSeries } from './usage-series';
import { useUsage, type UsageTotals } from './useUsage';

const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/**
 * The tenant's usage over a range of UTC days (issue 26), from `GET /v1/usage`: turns and tokens
 * per day charted (uPlot), the range's totals as text, and the same per key. One key's only when
 * a key prefix is given (a client key sees its own only).
 */
export function UsageScreen({ api }: { api: HubApi }) {
  const [from, setFrom] = useState(() => daysAgo(13));
  const [to, setTo] = useState(today);
  const [key, setKey] = useState('');
  const q = useUsage(api, { from, to, key });
  const series = useMemo(() => (q.data ? usageSeries(q.data.days, q.data.from, q.data.to) : null), [q.data]);
  const turnLines = useMemo(
    () =>
      series && [
        { label: 'Completed', values: series.completed, color: '#1a7f37' },
        { label: 'Failed', values: series.failed, color: '#cf222e' },
        { label: 'Cancelled', values: series.cancelled, color: '#9a6700' },
      ],
    [series],
  );
  const tokenLines = useMemo(
    () =>
      series && [
        { label: 'Tokens in', values: series.promptTokens, color: '#0969da' },
        { label: 'Tokens out', values: series.completionTokens, color: '#8250df' },
      ],
    [series],
  );
  return (
    <section className="screen usage">
      <h1>Usage</h1>
      <form className="usage-range" aria-label="Range" onSubmit={(e) => e.preventDefault()}>
        <label>
          From <input type="date" value={from} max={to} onChange={(e) => e.target.value && setFrom(e.target.value)} />
        </label>
        <label>
          To <input type="date" value={to} min={from} onChange={(e) => e.target.value && setTo(e.target.value)} />
        </label>
        <label>
          Key prefix <input value={key} onChange={(e) => setKey(e.target.value)} placeholder="every key" />
        </label>
      </form>
      {q.isPending ? (
        <p className="state loading">Loading usage…</p>
      ) : q.isError ? (
        <p className="state error" role="alert">
          Could not load usage: {q.error.message}
        </p>
      ) : (
        <>
          <Totals title="Totals" totals={q.data.totals} />
          {series && turnLines && tokenLines && (
            <div className="usage-charts">
              <UsageChart title="Turns per day" x={series.x} lines={turnLines} />
              <UsageChart title="Tokens per day" x={series.x} lines={tokenLines} />
            </div>
          )}
          <h2>By key and day</h2>
          {q.data.days.length === 0 ? (
            <p className="state empty">No turns in this range.</p>
          ) : (
            <ul className="usage-days">
              {q.data.days.map((d) => (
                <li key={`${d.day} ${d.keyPrefix ?? ''}`}>
                  <Totals title={`${d.day} · ${d.keyPrefix ?? 'no key (system)'}`} totals={d} level={3} />
                </li>
              ))}
            </ul>
          )}
          <p className="muted">As of log position {q.data.asOf}: the read model follows the log a moment behind.</p>
        </>
      )}
    </section>
  );
}

function Totals({ title, totals: t, level = 2 }: { title: string; totals: UsageTotals; level?: 2 | 3 }) {
  const Heading = level === 2 ? 'h2' : 'h3';
  const tools = Object.entries(t.toolCalls);
  return (
    <section className="usage-totals" aria-label={title}>
      <Heading>{title}</Heading>
      <dl>
        <dt>Turns</dt>
        <dd data-total="turns">{count(turnsOf(t))}</dd>
        <dt>Completed</dt>
        <dd data-total="completed">{count(t.turns.completed)}</dd>
        <dt>Failed</dt>
        <dd data-total="failed">{count(t.turns.failed)}</dd>
        <dt>Cancelled</dt>
        <dd data-total="cancelled">{count(t.turns.cancelled)}</dd>
        <dt>Model calls</dt>
        <dd data-total="modelCalls">{count(t.modelCalls)}</dd>
        <dt>Tokens in</dt>
        <dd data-total="promptTokens">{count(t.promptTokens)}</dd>
        <dt>Tokens out</dt>
        <dd data-total="completionTokens">{count(t.completionTokens)}</dd>
        <dt>Tool calls</dt>
        <dd data-total="toolCalls">{tools.length === 0 ? '0' : tools.map(([executor, n]) => `${executor}: ${count(n)}`).join(', ')}</dd>
        <dt>Approvals answered</dt>
        <dd data-total="approvals">{count(t.approvals)}</dd>
        <dt>Approval wait</dt>
        <dd data-total="approvalWaitMs">{(t.approvalWaitMs / 1000).toFixed(1)} s</dd>
      </dl>
    </section>
  );
}
