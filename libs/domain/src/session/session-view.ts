import type { HubEvent, TurnRequested } from '../events/events';
import type { Protocol } from '../metadata';
import { concernsTurn, evolveTurn, initialTurnProgress, type TurnProgress } from '../turn/turn-progress';
import { evolveSession, initialSessionState, type SessionState } from './session-state';

/**
 * The version of {@link SessionView}'s shape and fold. Bump it whenever either changes: a stored
 * snapshot of another version is ignored and the view is rebuilt from the stream.
 */
export const SESSION_VIEW_VERSION = 2;

/** A turn not yet ended (requested, queued or running), with the protocol it was requested over. */
export interface OpenTurn {
  progress: TurnProgress;
  protocol: Protocol | null;
  /** Order among started turns (the conversation's order); null while not started. */
  startSeq: number | null;
  /** When the turn was requested (its TurnRequested event's time), for turn-latency metrics; absent in older snapshots. */
  requestedAt?: string | null;
}

/**
 * Everything a command decision and a runner step need from a session, kept by one fold so that
 * a snapshot of it plus the events after it replaces reading the whole stream:
 * - the decider's state;
 * - each open turn's progress (a turn in flight when the snapshot was taken goes on from it);
 * - the conversation the model sees: every ended turn that started, compacted to what the
 *   model is shown (prompts, completed calls, tool results, delivered input);
 * - the workspace's file changes (see {@link WORKSPACE_TOOLS}).
 * The fold updates the view in place (it owns it): a long history is not copied per event.
 */
export interface SessionView {
  session: SessionState;
  open: Record<string, OpenTurn>;
  history: TurnProgress[];
  fileEvents: HubEvent[];
  startCount: number;
}

/** Built-in tools whose completed calls change the session's virtual workspace. */
export const WORKSPACE_TOOLS: readonly string[] = ['write_file', 'delete_file'];

export function initialSessionView(): SessionView {
  return { session: initialSessionState, open: {}, history: [], fileEvents: [], startCount: 0 };
}

const ENDED = new Set<TurnProgress['status']>(['completed', 'failed', 'cancelled', 'delivered']);

/** Applies one event (with its metadata when recorded) to the view, in place; returns the view. */
export function evolveSessionView(view: SessionView, event: HubEvent & { metadata?: { protocol?: Protocol } }): SessionView {
  view.session = evolveSession(view.session, event);
  trackFiles(view, event);
  for (const turnId of turnsOf(event)) evolveTurnIn(view, turnId, event);
  return view;
}

export function foldSessionView(events: Iterable<HubEvent & { metadata?: { protocol?: Protocol } }>, from: SessionView = initialSessionView()): SessionView {
  for (const e of events) evolveSessionView(from, e);
  return from;
}

/** The started turns in conversation order: ended ones, then the open ones by start. */
export function conversationTurns(view: SessionView): TurnProgress[] {
  const open = Object.values(view.open)
    .filter((t) => t.startSeq !== null)
    .sort((a, b) => (a.startSeq ?? 0) - (b.startSeq ?? 0))
    .map((t) => t.progress);
  return [...view.history, ...open];
}

/** How far `turnId` got: open, ended (compacted), or never seen. */
export function turnProgressOf(view: SessionView, turnId: string): TurnProgress {
  return view.open[turnId]?.progress ?? findEnded(view, turnId) ?? initialTurnProgress(turnId);
}

/** The request of an open turn (context included), or null. */
export function openRequestOf(view: SessionView, turnId: string): TurnRequested['data'] | null {
  return view.open[turnId]?.progress.request ?? null;
}

function turnsOf(e: HubEvent): string[] {
  const ids: string[] = [];
  if ('turnId' in e.data && typeof e.data.turnId === 'string') ids.push(e.data.turnId);
  if (e.type === 'UserMessageInjected' && e.data.fromTurnId !== e.data.turnId) ids.push(e.data.fromTurnId);
  return ids;
}

function findEnded(view: SessionView, turnId: string): TurnProgress | undefined {
  for (let i = view.history.length - 1; i >= 0; i--) if (view.history[i].turnId === turnId) return view.history[i];
  return undefined;
}

function evolveTurnIn(view: SessionView, turnId: string, e: HubEvent & { metadata?: { protocol?: Protocol }; createdAt?: string }): void {
  if (!concernsTurn(e, turnId)) return;
  const open = view.open[turnId];
  if (!open) {
    let ended = view.history.length - 1;
    while (ended >= 0 && view.history[ended].turnId !== turnId) ended--;
    if (ended >= 0) {
      view.history[ended] = compact(evolveTurn(view.history[ended], e));
      return;
    }
  }
  const before = open?.progress ?? initialTurnProgress(turnId);
  const progress = evolveTurn(before, e);
  // An event that changes nothing for a turn we do not track (e.g. a late reward) opens nothing.
  if (!open && progress === before) return;
  const protocol = open?.protocol ?? (e.type === 'TurnRequested' ? (e.metadata?.protocol ?? null) : null);
  const startSeq = open?.startSeq ?? (e.type === 'TurnStarted' ? view.startCount++ : null);
  const requestedAt = open?.requestedAt ?? (e.type === 'TurnRequested' ? (e.createdAt ?? null) : null);
  if (!ENDED.has(progress.status)) {
    view.open[turnId] = { progress, protocol, startSeq, requestedAt };
    return;
  }
  delete view.open[turnId];
  // A turn that never started is not part of the conversation.
  if (startSeq !== null) view.history.push(compact(progress));
}

/** What an ended turn keeps: the model is shown completed calls' text, not their deltas; its context is not needed. */
function compact(p: TurnProgress): TurnProgress {
  return {
    ...p,
    request: p.request && { ...p.request, context: {} },
    calls: p.calls.map((c) => (c.completed ? { ...c, text: '', thought: '' } : c)),
  };
}

function trackFiles(view: SessionView, e: HubEvent): void {
  if (e.type === 'ToolCallStarted' && WORKSPACE_TOOLS.includes(e.data.name)) view.fileEvents.push(e);
  // An approver's edit (ApprovalResolved.input) changes what the call writes: kept with it.
  const edit = e.type === 'ApprovalResolved' && e.data.input !== undefined;
  if (
    (e.type === 'ToolCallCompleted' || edit) &&
    view.fileEvents.some((f) => f.type === 'ToolCallStarted' && f.data.turnId === e.data.turnId && f.data.toolCallId === e.data.toolCallId)
  ) {
    view.fileEvents.push(e);
  }
}

// Tags no event payload uses for its own keys.
const MAP = '$hub:map';
const SET = '$hub:set';

/** JSON of a view: Maps and Sets (the decider state's) as tagged arrays. */
export function encodeSessionView(view: SessionView): string {
  return JSON.stringify(view, (_k, v: unknown) => {
    if (v instanceof Map) return { [MAP]: [...v.entries()] };
    if (v instanceof Set) return { [SET]: [...v.values()] };
    return v;
  });
}

export function decodeSessionView(json: string): SessionView {
  return JSON.parse(json, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (Array.isArray(o[MAP])) return new Map(o[MAP] as [unknown, unknown][]);
      if (Array.isArray(o[SET])) return new Set(o[SET] as unknown[]);
    }
    return v;
  }) as SessionView;
}
