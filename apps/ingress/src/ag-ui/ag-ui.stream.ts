import type { Logger } from '@nestjs/common';
import { EventEncoder } from '@ag-ui/encoder';
import { EventType, type BaseEvent } from '@ag-ui/core';
import type { HubEvent, Recorded } from '@hub/domain';
import { encodeEvent, finishRun, type AgUiView, type Frame, type RunView } from '@hub/protocol-ag-ui';
import type { EventStream } from '../http/event-streams';

/**
 * One AG-UI run on an open SSE response: the hub's events of the session, encoded in log order,
 * until the run's turn ends or waits for approvals. Each hub event's last frame carries its
 * global position as the SSE `id`. From here on every failure is a RUN_ERROR.
 */
export class AgUiStream {
  private done = false;
  /** Approvals this run answers, until their resolution arrives from the log: not yet a reason to stop. */
  private readonly answering: Set<string>;

  constructor(
    private readonly out: EventStream,
    private readonly encoder: EventEncoder,
    private view: AgUiView,
    private readonly run: RunView,
    answering: readonly string[],
    private readonly log: Logger,
    private readonly correlationId: string,
  ) {
    this.answering = new Set(answering);
  }

  /** The last frame for a key revoked mid-run: a run error the frontend's verifier accepts. */
  static revokedFrame(encoder: EventEncoder): string {
    return encoder.encodeSSE({
      type: EventType.RUN_ERROR,
      message: 'the API key of this stream was revoked; sign in again with a valid key',
      code: 'UNAUTHENTICATED',
    } as BaseEvent);
  }

  get finished(): boolean {
    return this.done;
  }

  send(frames: readonly Frame[]): void {
    for (const f of frames) this.out.write(`${f.cursor === undefined ? '' : `id: ${f.cursor}\n`}${this.encoder.encodeSSE(f.event)}`);
  }

  /** Sends `frames` and takes `view` as the stream's (the run's opening). */
  open(view: AgUiView, frames: readonly Frame[]): void {
    this.view = view;
    this.send(frames);
  }

  /** Encodes a batch; `check`: whether the run may end after it (not while catching up to the head). */
  apply(batch: readonly Recorded<HubEvent>[], check = true): void {
    if (this.done) return;
    try {
      for (const event of batch) {
        if (event.type === 'ApprovalResolved') this.answering.delete(event.data.approvalId);
        const next = encodeEvent(this.view, event);
        this.view = next.view;
        this.send(next.frames);
      }
      if (check) this.finish();
    } catch (e) {
      this.log.error(
        `run ${this.run.runId} of session ${this.run.threadId} failed (correlation id ${this.correlationId}): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
      );
      this.send([{ event: { type: EventType.RUN_ERROR, message: `internal error (correlation id ${this.correlationId})`, code: 'INTERNAL' } as BaseEvent }]);
      this.end();
    }
  }

  /** Ends the run when its turn has ended or waits for approvals; says whether it did. */
  finish(): boolean {
    if (this.done) return true;
    const pending = Object.fromEntries(Object.entries(this.view.pending).filter(([id]) => !this.answering.has(id)));
    const end = finishRun({ ...this.view, pending }, this.run);
    if (!end) return false;
    this.send(end.frames);
    this.view = end.view;
    this.end();
    return true;
  }

  private end(): void {
    this.done = true;
    this.out.end();
  }
}
