import { sessionStreamId, type EventMetadata, type HubEvent, type Recorded, type TurnRequested } from '@hub/domain';
import { RUBRIC_ACTOR, recordTurnReward, rubricOfTurn, type RewardLog } from './score';

/** The log as scoring an ended turn uses it: the whole session when a rubric needs it, and the reward's append. */
export interface ScoringLog extends RewardLog {
  readStream(tenantId: string, streamId: string): Promise<{ events: Recorded<HubEvent>[] }>;
}

/**
 * Scores a turn that has just ended (completed, failed or cancelled) when its request carries
 * an OpenEnv rubric, and records the `RewardComputed` (idempotent: a repeat finds the first).
 * `tail` is what the caller already read of the session (its whole stream, or the tail after a
 * snapshot); `request` the turn's request when the caller knows it. A turn asked without a
 * rubric costs nothing; one with a rubric has the whole session read once, here (a rubric
 * counts an episode's tool calls). Called by the worker when a turn ends and by whichever
 * process decides a cancel.
 */
export async function scoreEndedTurn(
  log: ScoringLog,
  at: { tenantId: string; sessionId: string; turnId: string; metadata: EventMetadata },
  tail: readonly Recorded<HubEvent>[],
  request?: TurnRequested['data'] | null,
): Promise<void> {
  const events = await sessionForRubric(log, at, tail, request);
  if (events)
    await recordTurnReward(
      log,
      { tenantId: at.tenantId, streamId: sessionStreamId(at.sessionId), sessionId: at.sessionId, metadata: at.metadata },
      events,
      at.turnId,
    );
}

async function sessionForRubric(
  log: ScoringLog,
  at: { tenantId: string; sessionId: string; turnId: string },
  tail: readonly Recorded<HubEvent>[],
  request?: TurnRequested['data'] | null,
): Promise<readonly Recorded<HubEvent>[] | null> {
  if (tail[0]?.streamPosition === 1) return tail;
  const known = request ?? tail.find((e) => e.type === 'TurnRequested' && e.data.turnId === at.turnId)?.data;
  if (known && rubricOfTurn([{ type: 'TurnRequested', data: known as TurnRequested['data'] }], at.turnId) === null) return null;
  return (await log.readStream(at.tenantId, sessionStreamId(at.sessionId))).events;
}

/** The trace a follow-up's events carry (the current correlation id and traceparent). */
export interface TraceFields {
  correlationId: string;
  traceparent?: string;
  tracestate?: string;
}

/**
 * The `turnEnded` follow-up of a turn runner or a command handler: scores the ended turn with
 * {@link scoreEndedTurn} under the rubric's actor. It never throws: the turn's end stands, and
 * a reward that failed to be recorded can still be recorded by a later `/step` of the turn;
 * `warn` is told.
 */
export function turnEndedScoring(log: ScoringLog, trace: () => TraceFields, warn: (message: string) => void) {
  return async (
    tenantId: string,
    sessionId: string,
    turnId: string,
    tail: readonly Recorded<HubEvent>[],
    request?: TurnRequested['data'] | null,
  ): Promise<void> => {
    const metadata = { ...trace(), actor: RUBRIC_ACTOR, protocol: 'openenv' as const };
    try {
      await scoreEndedTurn(log, { tenantId, sessionId, turnId, metadata }, tail, request);
    } catch (e) {
      warn(`scoring turn ${turnId} of ${sessionId} failed: ${(e as Error).message}`);
    }
  };
}
