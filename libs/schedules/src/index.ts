export { FireTimes, type Timing } from './fire-times';
export { tickTarget, type TickOutcome, type TickSource } from './rows';
export { MAX_BACKFILL_TICKS, MAX_PREVIEW, ScheduleNotFound, Schedules, parseSpec, type RecordAdmin, type ScheduleView, type TickView } from './schedules';
export { ScheduleTicker, scheduleActor, type ScheduledTurnRequest, type SubmitResult, type TickFacts, type TickerOptions, type TurnSubmitter } from './ticker';
