import type { HubEvent, Recorded } from '@hub/domain';
import { encode, foldTask, isInterrupted, isTerminal, rpcResult, taskFrame, type JsonRpcId, type TaskRef, type TaskView } from '@hub/protocol-a2a';
import type { EventStream } from '../http/event-streams';
import type { SessionStreams } from '../streams/session-streams.service';

export interface TaskStreamOptions {
  /** The client's cursor (`Last-Event-ID`): the stream starts with the task as of it, then what followed. Absent: as of now. */
  after?: number;
  /** `SendStreamingMessage` ends at `input-required` too (the client answers with a new message); `SubscribeToTask` only at a terminal state. */
  endOnInput: boolean;
}

/**
 * One task followed over SSE, read from the log: first the `Task` as of the cursor (A2A v1.0
 * §3.1.6), then every update of the events after it, live, until the task ends. The history and
 * the live feed meet at the feed's head (SessionStreams), so nothing is missed or sent twice;
 * each SSE event's `id` is the global position of the event it encodes (the client's resume cursor).
 */
export async function streamTask(
  streams: SessionStreams,
  tenantId: string,
  ref: TaskRef,
  rpcId: JsonRpcId,
  openOut: () => EventStream,
  opts: TaskStreamOptions,
): Promise<void> {
  let view: TaskView | null = null;
  let done = false;
  const early: Recorded<HubEvent>[] = [];
  /** The feed's closer and the SSE response, once each is open. */
  const opened: { close?: () => Promise<void>; out?: EventStream } = {};
  const finish = () => {
    if (done) return;
    done = true;
    opened.out?.end();
    void opened.close?.();
  };
  const apply = (events: readonly Recorded<HubEvent>[]) => {
    for (const e of events) {
      if (done || !view || e.globalPosition <= view.cursor) continue;
      const encoded = encode(e, view);
      view = encoded.view;
      for (const frame of encoded.frames) opened.out?.send('message', rpcResult(rpcId, frame), e.globalPosition);
      if (encoded.frames.length > 0 && ends(view, opts)) finish();
    }
  };
  // The feed first: a cursor ahead of the log is refused as a JSON-RPC error, before the stream's 200.
  const feed = await streams.open(
    tenantId,
    ref.sessionId,
    (batch) => (view ? apply(batch) : void early.push(...batch)),
    opts.after === undefined ? {} : { after: opts.after },
  );
  opened.close = () => feed.close();
  const out = (opened.out = openOut());
  out.onClose(finish);
  const from = opts.after ?? feed.head;
  view = foldTask(feed.history, ref, from);
  // The fold's cursor is the last event it read; the stream goes on from the cursor asked for.
  view = { ...view, cursor: from };
  const first = taskFrame(view);
  if (first) out.send('message', rpcResult(rpcId, first), from);
  if (ends(view, opts)) return finish();
  apply(feed.history.filter((e) => e.globalPosition > from));
  apply(early.splice(0));
}

function ends(view: TaskView, opts: TaskStreamOptions): boolean {
  return opts.endOnInput ? isInterrupted(view) : isTerminal(view);
}
