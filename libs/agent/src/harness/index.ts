// The wrapped-harness side of @hub/agent (RFC 005 `acp` / `command`): what the worker and ingress
// use (the spec, the runner, the process registry), the adapter contract and its two adapters,
// the command provider's line format and the failure codes. Internals (the child process, the
// event writer, the ACP loader) stay inside this folder.
export type {
  AdapterOptions,
  HarnessAdapter,
  HarnessOutput,
  HarnessPermissionAnswer,
  HarnessPermissionRequest,
  HarnessSink,
  HarnessToolStatus,
  HarnessTurn,
  HarnessTurnResult,
} from './adapter';
export { AcpHarnessAdapter } from './acp-adapter';
export { CommandAnswerLine, CommandHarnessAdapter, CommandToolRecord, CommandTurnLine } from './command-adapter';
export { ExternalTurnRunner, type ExternalRunTurnInput, type ExternalTurnRunnerDeps } from './external-turn-runner';
export { HarnessError, type HarnessErrorCode } from './harness-errors';
export { HarnessProcesses, defaultAdapterFactory, type AdapterFactory } from './harness-processes';
export { ExternalHarnessSpec, HARNESS_CONTEXT_KEY, externalHarnessOf, harnessExecutor } from './harness-spec';
