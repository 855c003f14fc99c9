/**
 * Pure: a session's events as each turn's steps on a time axis (issue 26): the queue wait before
 * a worker took the turn, each model call (with its tokens), each tool call (executor, outcome),
 * each approval wait (who answered), and the time lost when a worker died and another took the
 * turn over. Every step keeps the stream positions of its events, for links to them.
 */

/** The part of a recorded event this reads (RecordedEvent, or anything shaped like it). */
export interface StepEvent {
  type: string;
  data: unknown;
  streamPosition: number;
  createdAt: string;
  metadata?: { actor?: { type: string; id: string; name?: string } } | null;
}

export type StepKind = 'queue' | 'model' | 'tool' | 'approval' | 'retry';
/** `open`: not ended yet; `interrupted`: its worker died before it ended. */
export type StepOutcome = 'ok' | 'failed' | 'cancelled' | 'denied' | 'interrupted' | 'open';
export type TurnStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'delivered';

export interface Step {
  kind: StepKind;
  label: string;
  detail: string;
  /** Epoch ms. */
  start: number;
  end: number;
  outcome: StepOutcome;
  /** Stream positions of the events the step is drawn from. */
  positions: number[];
}

export interface TurnTimeline {
  turnId: string;
  status: TurnStatus;
  start: number;
  end: number;
  steps: Step[];
  /** Stream position of the turn's first event. */
  position: number;
}

interface Building extends TurnTimeline {
  open: Map<string, Step>;
  worker: string | null;
  lastAt: number;
  /** Model calls a dead worker left open, and when another worker took the turn over. */
  resumable: Map<string, { step: Step; from: number }>;
}

type Data = Record<string, unknown> & { turnId?: string; fromTurnId?: string };

const ENDS: Record<string, TurnStatus> = { TurnCompleted: 'completed', TurnFailed: 'failed', TurnCancelled: 'cancelled', UserMessageInjected: 'delivered' };

function who(by: unknown): string {
  const a = by as { type?: string; id?: string; name?: string } | undefined;
  if (!a) return 'someone';
  return a.name ?? (a.type === 'api_key' ? `key ${a.id}` : a.type === 'worker' ? 'the hub (deadline)' : (a.type ?? 'someone'));
}

function close(b: Building, key: string, at: number, outcome: StepOutcome, position: number, detail?: string): void {
  const s = b.open.get(key);
  if (!s) return;
  b.open.delete(key);
  s.end = Math.max(s.start, at);
  s.outcome = outcome;
  s.positions.push(position);
  if (detail !== undefined) s.detail = detail;
}

function begin(b: Building, key: string, step: Omit<Step, 'end' | 'outcome'>): void {
  const s: Step = { ...step, end: step.start, outcome: 'open' };
  b.open.set(key, s);
  b.steps.push(s);
}

/** Every turn the events show, in the order they were requested, each with its steps in time order. */
export function turnTimelines(events: readonly StepEvent[]): TurnTimeline[] {
  const turns = new Map<string, Building>();
  for (const e of events) {
    const data = (e.data ?? {}) as Data;
    const turnId = e.type === 'UserMessageInjected' ? data.fromTurnId : data.turnId;
    if (typeof turnId !== 'string') continue;
    const at = Date.parse(e.createdAt);
    let b = turns.get(turnId);
    if (!b) {
      b = {
        turnId,
        status: 'queued',
        start: at,
        end: at,
        steps: [],
        position: e.streamPosition,
        open: new Map(),
        worker: null,
        lastAt: at,
        resumable: new Map(),
      };
      turns.set(turnId, b);
      if (e.type === 'TurnRequested') {
        begin(b, 'queue', { kind: 'queue', label: 'queue', detail: 'waiting for a worker', start: at, positions: [e.streamPosition] });
        continue;
      }
    }
    // A worker other than the one that ran the turn so far: the first died, this one took over.
    const actor = e.metadata?.actor;
    if (actor?.type === 'worker') {
      if (b.worker !== null && actor.id !== b.worker) {
        for (const [key, step] of [...b.open.entries()]) {
          close(b, key, b.lastAt, 'interrupted', e.streamPosition);
          if (step.kind === 'model') b.resumable.set(key, { step, from: at });
        }
        b.steps.push({
          kind: 'retry',
          label: 'retry',
          detail: `worker ${b.worker} died; ${actor.id} took over`,
          start: b.lastAt,
          end: at,
          outcome: 'interrupted',
          positions: [e.streamPosition],
        });
      }
      b.worker = actor.id;
    }
    if (b.open.has('queue') && e.type !== 'TurnQueued' && !(e.type in ENDS)) {
      close(b, 'queue', at, 'ok', e.streamPosition);
      b.status = 'running';
    }
    switch (e.type) {
      case 'ModelCallStarted':
        b.resumable.delete(`model:${String(data.callId)}`);
        begin(b, `model:${String(data.callId)}`, {
          kind: 'model',
          label: `model ${String(data.model)}`,
          detail: String(data.provider),
          start: at,
          positions: [e.streamPosition],
        });
        break;
      case 'ModelCallCompleted': {
        const u = data.usage as { promptTokens: number; completionTokens: number };
        const key = `model:${String(data.callId)}`;
        // A call the new worker went on with (no second ModelCallStarted): drawn from the takeover.
        const resumed = b.open.has(key) ? undefined : b.resumable.get(key);
        if (resumed) {
          b.resumable.delete(key);
          begin(b, key, { kind: 'model', label: resumed.step.label, detail: `${resumed.step.detail}, continued`, start: resumed.from, positions: [] });
        }
        close(b, key, at, 'ok', e.streamPosition, `${resumed ? 'continued after the takeover; ' : ''}${u.promptTokens} tokens in, ${u.completionTokens} out`);
        break;
      }
      case 'ToolCallStarted':
        begin(b, `tool:${String(data.toolCallId)}`, {
          kind: 'tool',
          label: `tool ${String(data.name)}`,
          detail: `on ${String(data.executor)}`,
          start: at,
          positions: [e.streamPosition],
        });
        break;
      case 'ToolCallCompleted': {
        const status = String(data.status);
        const s = b.open.get(`tool:${String(data.toolCallId)}`);
        close(
          b,
          `tool:${String(data.toolCallId)}`,
          at,
          status === 'complete' ? 'ok' : status === 'denied' ? 'denied' : 'failed',
          e.streamPosition,
          s ? `${s.detail}, ${status}` : status,
        );
        break;
      }
      case 'ApprovalRequested':
        begin(b, `approval:${String(data.approvalId)}`, {
          kind: 'approval',
          label: `approval of ${String(data.toolName)}`,
          detail: 'waiting for an answer',
          start: at,
          positions: [e.streamPosition],
        });
        break;
      case 'ApprovalResolved':
        close(
          b,
          `approval:${String(data.approvalId)}`,
          at,
          data.decision === 'approved' ? 'ok' : 'denied',
          e.streamPosition,
          `${String(data.decision)} by ${who(data.by)}`,
        );
        break;
      default:
        if (e.type in ENDS) {
          b.status = ENDS[e.type];
          const outcome: StepOutcome =
            b.status === 'failed' ? 'failed' : b.status === 'cancelled' ? 'cancelled' : b.status === 'delivered' ? 'ok' : 'interrupted';
          for (const key of [...b.open.keys()])
            close(b, key, at, key === 'queue' && b.status !== 'failed' ? (b.status === 'cancelled' ? 'cancelled' : 'ok') : outcome, e.streamPosition);
        }
    }
    b.end = Math.max(b.end, at);
    b.lastAt = at;
  }
  return [...turns.values()].map(({ open, worker: _w, lastAt: _l, resumable: _r, ...t }) => {
    // Still open at the last event: drawn up to it.
    for (const s of open.values()) s.end = Math.max(s.start, t.end);
    return t;
  });
}
