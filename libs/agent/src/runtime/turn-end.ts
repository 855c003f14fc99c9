import { evolveSession, nextTurnAfterEnd, type HubEvent } from '@hub/domain';
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
  await attempt.append([...ending, ...next]);
  for (const e of next) {
    if (e.type === 'TurnStarted') await scheduler.scheduleTurn(attempt.tenantId, attempt.sessionId, e.data.turnId, 'start', 'start');
  }
  await scheduler.turnEnded?.(attempt.tenantId, attempt.sessionId, attempt.turnId, attempt.events, request);
}
