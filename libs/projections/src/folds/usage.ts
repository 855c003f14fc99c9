import { sessionIdOf, type HubEvent } from '@hub/domain';
import type { ProjectedEvent, ProjectionDef } from '../projection';

/**
 * One turn's use of the hub, attributed to the key that requested it and the UTC day it was
 * requested (ADR 0043): the API sums these rows per tenant, key and day. A row per turn, keyed
 * by session like every other read model, so `hub replay` compares it session by session and an
 * erased session's usage goes with it.
 */
export interface UsageRow {
  [column: string]: unknown;
  tenant_id: string;
  session_id: string;
  turn_id: string;
  /** `YYYY-MM-DD` (UTC) of the turn's request (of its first event, for a turn with none). */
  day: string;
  /** Prefix of the API key that requested the turn; null when no key did (a schedule, the system). */
  key_prefix: string | null;
  /** How the turn ended, or null while it is queued or running. */
  outcome: UsageOutcome | null;
  model_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Tool calls started, by executor (`builtin`, `mcp:...`, a wrapped harness). */
  tool_calls: Record<string, number>;
  /** Approvals answered, and the time they waited for their answer, summed. */
  approvals: number;
  approval_wait_ms: number;
  /** Approvals still waiting: id → request time (ISO), to time the wait when the answer comes. */
  waiting: Record<string, string>;
  updated_position: number;
}

/** `delivered`: a queued steer whose message went into the running turn (it never started). */
export const USAGE_OUTCOMES = ['completed', 'failed', 'cancelled', 'delivered'] as const;
export type UsageOutcome = (typeof USAGE_OUTCOMES)[number];

const USAGE_READS: ReadonlySet<string> = new Set([
  'TurnRequested',
  'ModelCallCompleted',
  'ToolCallStarted',
  'ApprovalRequested',
  'ApprovalResolved',
  'UserMessageInjected',
  'TurnCompleted',
  'TurnFailed',
  'TurnCancelled',
]);

function turnIdOf(e: ProjectedEvent): string | null {
  if (!USAGE_READS.has(e.type)) return null;
  const data = e.data as { turnId?: unknown; fromTurnId?: unknown };
  const id = e.type === 'UserMessageInjected' ? data.fromTurnId : data.turnId;
  return typeof id === 'string' ? id : null;
}

function fresh(e: ProjectedEvent, sessionId: string, turnId: string): UsageRow {
  const actor = e.type === 'TurnRequested' ? e.metadata?.actor : undefined;
  return {
    tenant_id: e.tenantId,
    session_id: sessionId,
    turn_id: turnId,
    day: e.createdAt.slice(0, 10),
    key_prefix: actor?.type === 'api_key' ? actor.id : null,
    outcome: null,
    model_calls: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    tool_calls: {},
    approvals: 0,
    approval_wait_ms: 0,
    waiting: {},
    updated_position: e.globalPosition,
  };
}

function without(map: Record<string, string>, key: string): Record<string, string> {
  const rest = { ...map };
  delete rest[key];
  return rest;
}

function apply(row: UsageRow, event: HubEvent, e: ProjectedEvent): Partial<UsageRow> {
  switch (event.type) {
    case 'ModelCallCompleted':
      return {
        model_calls: row.model_calls + 1,
        prompt_tokens: row.prompt_tokens + event.data.usage.promptTokens,
        completion_tokens: row.completion_tokens + event.data.usage.completionTokens,
      };
    case 'ToolCallStarted': {
      const executor = event.data.executor;
      return { tool_calls: { ...row.tool_calls, [executor]: (row.tool_calls[executor] ?? 0) + 1 } };
    }
    case 'ApprovalRequested':
      return { waiting: { ...row.waiting, [event.data.approvalId]: e.createdAt } };
    case 'ApprovalResolved': {
      const since = row.waiting[event.data.approvalId];
      // An answer to a request this turn never showed (or a second answer) waited for nothing here.
      if (since === undefined) return {};
      return {
        approvals: row.approvals + 1,
        approval_wait_ms: row.approval_wait_ms + Math.max(0, Date.parse(e.createdAt) - Date.parse(since)),
        waiting: without(row.waiting, event.data.approvalId),
      };
    }
    // An end ends the wait of every approval still open; it counts as no answer.
    case 'UserMessageInjected':
      return { outcome: 'delivered', waiting: {} };
    case 'TurnCompleted':
      return { outcome: 'completed', waiting: {} };
    case 'TurnFailed':
      return { outcome: 'failed', waiting: {} };
    case 'TurnCancelled':
      return { outcome: 'cancelled', waiting: {} };
    default:
      return {};
  }
}

/** Pure: the turn's usage row after one event about it. */
export function evolveUsage(row: UsageRow | undefined, e: ProjectedEvent, sessionId: string, turnId: string): UsageRow {
  const base = row ?? fresh(e, sessionId, turnId);
  // The request makes the row; a second one of the same turn id changes nothing.
  if (e.type === 'TurnRequested') return base;
  return { ...base, ...apply(base, e as unknown as HubEvent, e), updated_position: e.globalPosition };
}

export const usageProjection: ProjectionDef<UsageRow> = {
  name: 'usage',
  table: {
    table: 'read_usage',
    key: ['tenant_id', 'session_id', 'turn_id'],
    group: [
      { column: 'tenant_id', type: 'uuid' },
      { column: 'session_id', type: 'text' },
      { column: 'turn_id', type: 'text' },
    ],
    columns: [
      'tenant_id',
      'session_id',
      'turn_id',
      'day',
      'key_prefix',
      'outcome',
      'model_calls',
      'prompt_tokens',
      'completion_tokens',
      'tool_calls',
      'approvals',
      'approval_wait_ms',
      'waiting',
      'updated_position',
    ],
  },
  reads: USAGE_READS,
  groupOf: (e) => {
    const sessionId = sessionIdOf(e.streamId);
    const turnId = turnIdOf(e);
    return sessionId === null || turnId === null ? null : [e.tenantId, sessionId, turnId];
  },
  evolve: (rows, e) => [evolveUsage(rows[0], e, sessionIdOf(e.streamId) as string, turnIdOf(e) as string)],
};
