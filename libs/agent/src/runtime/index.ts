export { RunningTurns, type TurnLog, type TurnScheduler } from './ports';
export { TurnRunner, type RunTurnInput, type RunTurnOutcome, type TurnRunnerDeps } from './turn-runner';
export { buildModelMessages, deniedToolOutput, SYSTEM_PROMPT } from './transcript';
export type { FlushPolicy } from './model-step';
export { RecordedTools } from './recorded-tools';
export { flushWindowMs, loadScaledFlush, QUIET_TURNS, type FlushWindowOptions } from './flush-window';
