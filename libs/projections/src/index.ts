import { approvalsProjection } from './folds/approvals';
import { sessionsProjection } from './folds/sessions';
import { turnsProjection } from './folds/turns';
import { usageProjection } from './folds/usage';
import type { ProjectionDef } from './projection';

export type { ProjectedEvent, ProjectionDef, Row, TableSpec } from './projection';
export { ProjectionRunner, type BatchInfo, type RunnerOptions } from './runner';
export { ProjectionThread, type ProjectionThreadOptions } from './projection-thread';
export { projectionStatus, type ProjectionStatus } from './status';
export { PROJECTION_CONNECTIONS, PROJECTION_POOL_SIZE } from './connections';
export { PROJECTIONS_CHANNEL, readBatch, resetProjection, type Batch } from './store';
export { foldBatch } from './apply-batch';
export { SESSION_STATUSES, evolveSession, titleOf, type SessionRow } from './folds/sessions';
export { TURN_STATUSES, evolveTurn, type TurnRow } from './folds/turns';
export { APPROVAL_STATUSES, evolveApprovals, type ApprovalRow } from './folds/approvals';
export { USAGE_OUTCOMES, evolveUsage, type UsageOutcome, type UsageRow } from './folds/usage';
export { addTotals, emptyTotals, readUsage, type TurnsByOutcome, type UsageDay, type UsageReport, type UsageTotals } from './usage-reads';
export { ReadModels, RUNNING_SESSIONS_SQL, type ApprovalView, type Page, type SessionView, type TurnView } from './read-models';
export { APPROVAL_CHANGES, ReadModelFeed, sessionChanges, type ChangeSource } from './read-model-feed';
export { rebuildProjection } from './rebuild';
export { sessionsProjection, turnsProjection, approvalsProjection, usageProjection };

/** The hub's read models, as every worker runs them. */
export const HUB_PROJECTIONS: readonly ProjectionDef[] = [
  sessionsProjection,
  turnsProjection,
  approvalsProjection,
  usageProjection,
] as unknown as ProjectionDef[];

/** The projection named `name`, or undefined. */
export function projectionNamed(name: string): ProjectionDef | undefined {
  return HUB_PROJECTIONS.find((p) => p.name === name);
}
export { replaySession, sessionsOf, type ReplayDifference } from './replay-check';
export { compareRuns, type RunComparison, type TurnComparison, type TurnOutcomeSummary } from './run-compare';
export { eraseSession, type EraseRequest } from './erase-session';
export { waitProjected, type WaitProjectedOptions } from './wait-projected';
export { sqlLiteral } from './sql-literal';
