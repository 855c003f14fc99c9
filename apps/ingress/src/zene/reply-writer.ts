import {
  ackLine,
  bridgeReply,
  errorLine,
  eventLine,
  rejected,
  resultLines,
  type BridgeReply,
  type ProtocolLine,
  type ReplyIds,
  type RunRequest,
  type ZeneErrorCode,
  type ZeneResult,
} from '@hub/protocol-zene';

/** `bridge`: one flat reply (`--bridge-compat`); `protocol`: the protocol-mode lines. */
export type ZeneMode = 'bridge' | 'protocol';

export type ZeneLine = BridgeReply | ProtocolLine;

/** A request refused before any run: an `error` line in protocol mode, a flat rejected reply in bridge mode. */
export function refusal(mode: ZeneMode, ids: { request_id: string; session_id: string | null }, code: ZeneErrorCode, message: string): ZeneLine {
  return mode === 'protocol' ? errorLine(ids, code, message, Date.now()) : bridgeReply({ ...ids, session_id: ids.session_id ?? '' }, rejected(code, message));
}

/**
 * Writes one run's replies in the caller's mode: protocol mode acknowledges at once and may
 * stream `event` lines (`stream`, upstream's default); bridge mode writes only the end.
 */
export class RunReplies {
  private readonly startedAt = Date.now();
  private acknowledged = false;

  constructor(
    readonly mode: ZeneMode,
    private readonly run: RunRequest,
    private readonly write: (line: ZeneLine) => void,
    private readonly onLimited: (retryAfterS: number) => void = () => undefined,
  ) {}

  /**
   * The run is refused for a used-up tenant limit, before anything was written: over HTTP the
   * reply is then a 429 with `Retry-After` (its `BUSY` line says the same in zene's terms).
   */
  limited(retryAfterMs: number): void {
    if (!this.acknowledged) this.onLimited(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  }

  get ids(): ReplyIds {
    return { request_id: this.run.request_id, session_id: this.run.session_id };
  }

  private get streaming(): boolean {
    return this.mode === 'protocol' && this.run.stream !== false;
  }

  accepted(timeoutMs: number): void {
    if (this.mode !== 'protocol') return;
    this.acknowledged = true;
    this.write(ackLine(this.ids, 'ACCEPTED', Date.now(), { request_ts_ms: Math.round(this.run.ts_ms ?? this.startedAt) }));
    if (this.streaming) {
      const payload = { timeout_ms: timeoutMs, metadata: this.run.metadata ?? null };
      this.write(eventLine(this.ids, 'REQUEST_ACCEPTED', 1, payload, Date.now()));
    }
  }

  duplicateInProgress(existingRequestId: string): void {
    this.write(ackLine(this.ids, 'DUPLICATE_IN_PROGRESS', Date.now(), { existing_request_id: existingRequestId }));
  }

  finish(result: ZeneResult, replayed = false): void {
    if (this.mode === 'bridge') return this.write(bridgeReply(this.ids, result));
    if (this.acknowledged && this.streaming) this.write(eventLine(this.ids, 'RUN_FINISHED', 2, {}, Date.now()));
    const timing = { tsMs: Date.now(), latencyMs: Date.now() - this.startedAt, replayed };
    for (const line of resultLines(this.ids, result, timing)) this.write(line);
  }
}
