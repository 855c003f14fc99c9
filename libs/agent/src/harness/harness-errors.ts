/**
 * Why an external harness turn could not go on. The code becomes `TurnFailed.code` (the hub's
 * failure codes are strings on the wire: OpenEnv shows it as the RFC `error` event's `code`).
 */
export type HarnessErrorCode =
  /** The process did not answer the handshake within `startup_timeout_s`, or could not spawn. */
  | 'HARNESS_START_FAILED'
  /** The process exited, was killed or broke its pipe while a turn was running. */
  | 'HARNESS_CRASHED'
  /** The turn ran past `session_timeout_s`. */
  | 'HARNESS_TIMEOUT'
  /** The turn had begun in a process this worker does not hold (worker died, job retried). */
  | 'HARNESS_LOST'
  /** The process was stopped on purpose (episode reset, worker shutdown) during the turn. */
  | 'HARNESS_STOPPED'
  /** The process answered something that is not the protocol. */
  | 'HARNESS_PROTOCOL'
  /** The command is not on the operator's allowlist. */
  | 'HARNESS_NOT_ALLOWED';

export class HarnessError extends Error {
  override readonly name = 'HarnessError';
  constructor(
    readonly code: HarnessErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The turn ended elsewhere (cancelled, failed by someone else) while the harness was running it. */
export class TurnEndedElsewhere extends Error {
  override readonly name = 'TurnEndedElsewhere';
}
