import { sessionIdOf, type EventOf, type HubEvent } from '@hub/domain';
import type { ProjectedEvent, ProjectionDef } from '../projection';

/** A session as its list shows it. Every value comes from events, so a rebuild gives the same row. */
export interface SessionRow {
  [column: string]: unknown;
  tenant_id: string;
  session_id: string;
  status: 'idle' | 'running' | 'awaiting_approval';
  opened_via: string | null;
  /** The key prefix of the API key whose command opened it; null when no key did. */
  opened_by: string | null;
  title: string | null;
  turn_count: number;
  active_turn_id: string | null;
  pending_approvals: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  opened_at: string;
  last_activity_at: string;
  last_position: number;
}

export const SESSION_STATUSES = ['idle', 'running', 'awaiting_approval'] as const;

const TITLE_MAX = 80;

/** The first prompt on one line, cut at a word near {@link TITLE_MAX} characters. */
export function titleOf(prompt: string): string | null {
  const line = prompt.replace(/\s+/g, ' ').trim();
  if (!line) return null;
  if (line.length <= TITLE_MAX) return line;
  const cut = line.slice(0, TITLE_MAX - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function opened(e: ProjectedEvent, sessionId: string): SessionRow {
  const via = e.type === 'SessionOpened' ? (e.data as EventOf<'SessionOpened'>['data']).openedVia : (e.metadata?.protocol ?? null);
  return {
    tenant_id: e.tenantId,
    session_id: sessionId,
    status: 'idle',
    opened_via: via,
    opened_by: e.metadata?.actor?.type === 'api_key' ? e.metadata.actor.id : null,
    title: null,
    turn_count: 0,
    active_turn_id: null,
    pending_approvals: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    opened_at: e.createdAt,
    last_activity_at: e.createdAt,
    last_position: e.globalPosition,
  };
}

/** The turn-level facts a session row counts; everything else only moves its last activity. */
function apply(row: SessionRow, event: HubEvent): Partial<SessionRow> {
  switch (event.type) {
    case 'TurnRequested':
      return { turn_count: row.turn_count + 1, title: row.title ?? titleOf(event.data.prompt) };
    case 'TurnStarted':
      return { status: 'running', active_turn_id: event.data.turnId, pending_approvals: 0 };
    case 'ModelCallCompleted': {
      const u = event.data.usage;
      return {
        prompt_tokens: row.prompt_tokens + u.promptTokens,
        completion_tokens: row.completion_tokens + u.completionTokens,
        total_tokens: row.total_tokens + u.totalTokens,
      };
    }
    case 'ApprovalRequested':
      if (event.data.turnId !== row.active_turn_id) return {};
      return { status: 'awaiting_approval', pending_approvals: row.pending_approvals + 1 };
    case 'ApprovalResolved': {
      if (event.data.turnId !== row.active_turn_id) return {};
      const pending = Math.max(0, row.pending_approvals - 1);
      return { pending_approvals: pending, status: pending > 0 ? 'awaiting_approval' : 'running' };
    }
    case 'TurnCompleted':
    case 'TurnFailed':
    case 'TurnCancelled':
      // Pending approvals all belong to the active turn: its end abandons them.
      if (event.data.turnId !== row.active_turn_id) return {};
      return { status: 'idle', active_turn_id: null, pending_approvals: 0 };
    default:
      return {};
  }
}

/**
 * How finely an event that changes nothing else on the row (a text delta, a tool call's progress)
 * moves its last activity: at most once per this long. A streaming turn then rewrites its
 * session's row about twice a turn instead of once per text window (5-9 times a turn measured at
 * 300 turns in flight); the list's "last activity" is right to within this, and its order by
 * `last_position` with it. Decided from the row and the event only, so a rebuild writes the same.
 */
export const ACTIVITY_GRANULARITY_MS = 5_000;

/** Pure: the session's row after one event of its stream (the same object when the event changes nothing on it). */
export function evolveSession(row: SessionRow | undefined, e: ProjectedEvent, sessionId: string): SessionRow {
  const base = row ?? opened(e, sessionId);
  if (!SESSION_READS.has(e.type)) {
    if (row && Date.parse(e.createdAt) - Date.parse(row.last_activity_at) < ACTIVITY_GRANULARITY_MS) return row;
    return { ...base, last_activity_at: e.createdAt, last_position: e.globalPosition };
  }
  return { ...base, ...apply(base, e as unknown as HubEvent), last_activity_at: e.createdAt, last_position: e.globalPosition };
}

const SESSION_READS: ReadonlySet<string> = new Set([
  'SessionOpened',
  'TurnRequested',
  'TurnStarted',
  'ModelCallCompleted',
  'ApprovalRequested',
  'ApprovalResolved',
  'TurnCompleted',
  'TurnFailed',
  'TurnCancelled',
]);

export const sessionsProjection: ProjectionDef<SessionRow> = {
  name: 'sessions',
  table: {
    table: 'read_sessions',
    key: ['tenant_id', 'session_id'],
    group: [
      { column: 'tenant_id', type: 'uuid' },
      { column: 'session_id', type: 'text' },
    ],
    columns: [
      'tenant_id',
      'session_id',
      'status',
      'opened_via',
      'opened_by',
      'title',
      'turn_count',
      'active_turn_id',
      'pending_approvals',
      'prompt_tokens',
      'completion_tokens',
      'total_tokens',
      'opened_at',
      'last_activity_at',
      'last_position',
    ],
  },
  reads: SESSION_READS,
  groupOf: (e) => {
    const sessionId = sessionIdOf(e.streamId);
    return sessionId === null ? null : [e.tenantId, sessionId];
  },
  evolve: (rows, e) => [evolveSession(rows[0], e, sessionIdOf(e.streamId) as string)],
};
