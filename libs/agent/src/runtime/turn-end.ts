import { evolveSession, nextTurnAfterEnd, type HubEvent } from '@hub/domain';
import { hubMetrics } from '@hub/telemetry';
import type { TurnAttempt } from './context';
import type { TurnScheduler } from './ports';

/**
 * Appends a turn's last events with the next queued turn's start in the same append (a queued
 * turn never waits for another command), schedules that turn, and tells what follows a turn
 * (OpenEnv scoring) that this one ended. Shared by the built-in runner and the harness writer.
 * A version conflict propagates: the caller re-reads and decides again.
 */
export async function appendTurnEnd(attempt: TurnAttempt, ending: HubEvent[], scheduler: TurnScheduler): Promise<void> {
  const next = nextTurnAfterEnd(ending.reduce(evolveSession, attempt.session()));
  // Read before the append: once ended, the view keeps the turn compacted (without its context).
  const request = attempt.progress().request;
  const open = attempt.sessionView().open[attempt.turnId];
  const timing = { protocol: open?.protocol ?? 'unknown', requestedAt: open?.requestedAt ?? null };
  const written = await attempt.append([...ending, ...next]);
  recordTurnEnd(ending, timing);
  for (const e of written) {
    if (e.type !== 'TurnStarted') continue;
    await scheduler.scheduleTurn(attempt.tenantId, attempt.sessionId, e.data.turnId, 'start', 'start');
    const { tenantId, sessionId, version } = attempt;
    scheduler.turnScheduled?.({ tenantId, sessionId, turnId: e.data.turnId, key: 'start', version, since: e.createdAt, metadata: e.metadata });
  }
  await scheduler.turnEnded?.(attempt.tenantId, attempt.sessionId, attempt.turnId, attempt.events, request);
}

/** `hub.turns.finished` and `hub.turn.duration.seconds` (from TurnRequested to now). */
function recordTurnEnd(ending: HubEvent[], { protocol, requestedAt }: { protocol: string; requestedAt: string | null }): void {
  const end = ending.find((e) => e.type === 'TurnCompleted' || e.type === 'TurnFailed' || e.type === 'TurnCancelled');
  if (end === undefined) return;
  const outcome = end.type === 'TurnCompleted' ? 'completed' : end.type === 'TurnFailed' ? 'failed' : 'cancelled';
  const code = end.type === 'TurnFailed' ? end.data.code : undefined;
  const m = hubMetrics();
  m.turnsFinished.add(1, { protocol, outcome, ...(code === undefined ? {} : { code }) });
  if (requestedAt) m.turnDuration.record(Math.max(0, Date.now() - Date.parse(requestedAt)) / 1000, { protocol, outcome });
}
