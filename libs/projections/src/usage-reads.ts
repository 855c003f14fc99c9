import { asTenant } from '@hub/event-store';
import type { Pool } from 'pg';
import { usageProjection, type UsageOutcome } from './folds/usage';

/** Turns by how they ended; `open`: still queued or running. */
export type TurnsByOutcome = Record<UsageOutcome | 'open', number>;

/** What a tenant (or one key) used: summed over a day, or over a whole range. */
export interface UsageTotals {
  turns: TurnsByOutcome;
  modelCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** Tool calls started, by executor. */
  toolCalls: Record<string, number>;
  approvals: number;
  /** Time answered approvals waited for their answer, summed. */
  approvalWaitMs: number;
}

/** One key's use on one UTC day (`keyPrefix` null: turns no key requested, e.g. a schedule's). */
export interface UsageDay extends UsageTotals {
  day: string;
  keyPrefix: string | null;
}

export interface UsageReport {
  from: string;
  to: string;
  key: string | null;
  days: UsageDay[];
  totals: UsageTotals;
  /** The log position the numbers include (the usage projection's checkpoint when read). */
  asOf: number;
}

interface DayRow {
  as_of: string;
  day: string | null;
  key_prefix: string | null;
  completed: string;
  failed: string;
  cancelled: string;
  delivered: string;
  open: string;
  model_calls: string;
  prompt_tokens: string;
  completion_tokens: string;
  approvals: string;
  approval_wait_ms: string;
  tool_calls: Record<string, string> | null;
}

// One statement (one snapshot): the checkpoint, and per (day, key) the sums and the tool calls
// by executor. The checkpoint row is always there, so a range with no usage still says where it is.
const USAGE_SQL = `
WITH cp AS (SELECT COALESCE((SELECT position FROM projection_checkpoints WHERE name = $5), 0)::text AS as_of),
     rows AS (SELECT * FROM read_usage WHERE tenant_id = $1 AND day BETWEEN $2::date AND $3::date AND ($4::text IS NULL OR key_prefix = $4)),
     tools AS (SELECT day, key_prefix, jsonb_object_agg(executor, n) AS tool_calls FROM (
                 SELECT r.day, r.key_prefix, t.key AS executor, sum(t.value::bigint)::text AS n
                   FROM rows r, jsonb_each_text(r.tool_calls) t GROUP BY 1, 2, 3) x GROUP BY 1, 2),
     sums AS (SELECT day, key_prefix,
                count(*) FILTER (WHERE outcome = 'completed') AS completed, count(*) FILTER (WHERE outcome = 'failed') AS failed,
                count(*) FILTER (WHERE outcome = 'cancelled') AS cancelled, count(*) FILTER (WHERE outcome = 'delivered') AS delivered,
                count(*) FILTER (WHERE outcome IS NULL) AS open,
                sum(model_calls) AS model_calls, sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
                sum(approvals) AS approvals, sum(approval_wait_ms) AS approval_wait_ms
              FROM rows GROUP BY day, key_prefix)
SELECT cp.as_of, to_char(s.day, 'YYYY-MM-DD') AS day, s.key_prefix, s.completed, s.failed, s.cancelled, s.delivered, s.open,
       s.model_calls, s.prompt_tokens, s.completion_tokens, s.approvals, s.approval_wait_ms, t.tool_calls
  FROM cp LEFT JOIN (sums s LEFT JOIN tools t ON t.day = s.day AND t.key_prefix IS NOT DISTINCT FROM s.key_prefix) ON true
 ORDER BY s.day, s.key_prefix NULLS FIRST`;

export function emptyTotals(): UsageTotals {
  return {
    turns: { completed: 0, failed: 0, cancelled: 0, delivered: 0, open: 0 },
    modelCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    toolCalls: {},
    approvals: 0,
    approvalWaitMs: 0,
  };
}

/** Pure: `a` plus `b`. */
export function addTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  const toolCalls = { ...a.toolCalls };
  for (const [k, n] of Object.entries(b.toolCalls)) toolCalls[k] = (toolCalls[k] ?? 0) + n;
  const turns = { ...a.turns };
  for (const k of Object.keys(turns) as (keyof TurnsByOutcome)[]) turns[k] += b.turns[k];
  return {
    turns,
    modelCalls: a.modelCalls + b.modelCalls,
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    toolCalls,
    approvals: a.approvals + b.approvals,
    approvalWaitMs: a.approvalWaitMs + b.approvalWaitMs,
  };
}

function dayOf(r: DayRow & { day: string }): UsageDay {
  return {
    day: r.day,
    keyPrefix: r.key_prefix,
    turns: { completed: Number(r.completed), failed: Number(r.failed), cancelled: Number(r.cancelled), delivered: Number(r.delivered), open: Number(r.open) },
    modelCalls: Number(r.model_calls),
    promptTokens: Number(r.prompt_tokens),
    completionTokens: Number(r.completion_tokens),
    toolCalls: Object.fromEntries(Object.entries(r.tool_calls ?? {}).map(([k, n]) => [k, Number(n)])),
    approvals: Number(r.approvals),
    approvalWaitMs: Number(r.approval_wait_ms),
  };
}

/**
 * The tenant's usage per key and UTC day from the usage read model (one projection step behind
 * the log: `asOf` says how far). Runs as the tenant: another tenant's rows are invisible.
 */
export async function readUsage(pool: Pool, tenantId: string, q: { from: string; to: string; key?: string }): Promise<UsageReport> {
  const { rows } = await asTenant(pool, tenantId).query<DayRow>(USAGE_SQL, [tenantId, q.from, q.to, q.key ?? null, usageProjection.name]);
  const days = rows.filter((r): r is DayRow & { day: string } => r.day !== null).map(dayOf);
  return { from: q.from, to: q.to, key: q.key ?? null, days, totals: days.reduce(addTotals, emptyTotals()), asOf: Number(rows[0]?.as_of ?? 0) };
}
