import { sessionIdOf, type HubEvent } from '@hub/domain';
import type { ProjectedEvent, ProjectionDef } from '../projection';

/** One turn: its status, timings, usage, model (or harness) and how it ended. */
export interface TurnRow {
  [column: string]: unknown;
  tenant_id: string;
  session_id: string;
  turn_id: string;
  status: TurnStatus;
  requested_via: string | null;
  requested_at: string;
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  provider: string | null;
  model: string | null;
  model_calls: number;
  tool_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  end_reason: string | null;
  error_code: string | null;
  requested_position: number;
  updated_position: number;
}

/** `delivered`: a queued steer whose message went into the running turn; it never starts. */
export const TURN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled', 'delivered'] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];

const TURN_READS: ReadonlySet<string> = new Set([
  'TurnRequested',
  'TurnStarted',
  'ModelCallStarted',
  'ModelCallCompleted',
  'ToolCallStarted',
  'UserMessageInjected',
  'TurnCompleted',
  'TurnFailed',
  'TurnCancelled',
]);

/** The turn an event is about (for an injected steer: the queued turn it delivered). */
function turnIdOf(e: ProjectedEvent): string | null {
  if (!TURN_READS.has(e.type)) return null;
  const data = e.data as { turnId?: unknown; fromTurnId?: unknown };
  const id = e.type === 'UserMessageInjected' ? data.fromTurnId : data.turnId;
  return typeof id === 'string' ? id : null;
}

function requested(e: ProjectedEvent, sessionId: string, turnId: string): TurnRow {
  return {
    tenant_id: e.tenantId,
    session_id: sessionId,
    turn_id: turnId,
    status: 'queued',
    requested_via: e.metadata?.protocol ?? null,
    requested_at: e.createdAt,
    started_at: null,
    ended_at: null,
    duration_ms: null,
    provider: null,
    model: null,
    model_calls: 0,
    tool_calls: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    end_reason: null,
    error_code: null,
    requested_position: e.globalPosition,
    updated_position: e.globalPosition,
  };
}

function ended(row: TurnRow, e: ProjectedEvent, status: TurnStatus, more: Partial<TurnRow>): Partial<TurnRow> {
  const start = row.started_at ?? row.requested_at;
  return { status, ended_at: e.createdAt, duration_ms: Math.max(0, Date.parse(e.createdAt) - Date.parse(start)), ...more };
}

function apply(row: TurnRow, event: HubEvent, e: ProjectedEvent): Partial<TurnRow> {
  switch (event.type) {
    case 'TurnStarted':
      return row.started_at ? {} : { status: 'running', started_at: e.createdAt };
    case 'ModelCallStarted':
      return { provider: event.data.provider, model: event.data.model };
    case 'ModelCallCompleted': {
      const u = event.data.usage;
      return {
        model_calls: row.model_calls + 1,
        prompt_tokens: row.prompt_tokens + u.promptTokens,
        completion_tokens: row.completion_tokens + u.completionTokens,
        total_tokens: row.total_tokens + u.totalTokens,
      };
    }
    case 'ToolCallStarted':
      return { tool_calls: row.tool_calls + 1 };
    case 'UserMessageInjected':
      return ended(row, e, 'delivered', { end_reason: 'steer' });
    case 'TurnCompleted':
      return ended(row, e, 'completed', { end_reason: event.data.stopReason });
    case 'TurnFailed':
      return ended(row, e, 'failed', { end_reason: 'error', error_code: event.data.code });
    case 'TurnCancelled':
      return ended(row, e, 'cancelled', { end_reason: event.data.reason });
    default:
      return {};
  }
}

/** Pure: the turn's row after one event about it. */
export function evolveTurn(row: TurnRow | undefined, e: ProjectedEvent, sessionId: string, turnId: string): TurnRow {
  const base = row ?? requested(e, sessionId, turnId);
  if (!row && e.type === 'TurnRequested') return base;
  return { ...base, ...apply(base, e as unknown as HubEvent, e), updated_position: e.globalPosition };
}

export const turnsProjection: ProjectionDef<TurnRow> = {
  name: 'turns',
  table: {
    table: 'read_turns',
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
      'status',
      'requested_via',
      'requested_at',
      'started_at',
      'ended_at',
      'duration_ms',
      'provider',
      'model',
      'model_calls',
      'tool_calls',
      'prompt_tokens',
      'completion_tokens',
      'total_tokens',
      'end_reason',
      'error_code',
      'requested_position',
      'updated_position',
    ],
  },
  reads: TURN_READS,
  groupOf: (e) => {
    const sessionId = sessionIdOf(e.streamId);
    const turnId = turnIdOf(e);
    return sessionId === null || turnId === null ? null : [e.tenantId, sessionId, turnId];
  },
  evolve: (rows, e) => [evolveTurn(rows[0], e, sessionIdOf(e.streamId) as string, turnIdOf(e) as string)],
};
