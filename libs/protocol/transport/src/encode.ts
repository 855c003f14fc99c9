import { evolveHarness, retryAfterMsIn, type DomainErrorCode, type HarnessView, type HubEvent, type Recorded } from '@hub/domain';
import type { DeltaMessage, ErrorMessage, ServerMessage, StateMessage, WireErrorCode } from './schema';

/**
 * Encodes one recorded event for a watcher: the delta that takes its copy of the state to the
 * new one, with the event's global position as the cursor; no frame when nothing visible
 * changed. Total over the event union through `evolveHarness`, whose exhaustive switch does
 * not compile until a new event is mapped.
 */
export function encode(event: Recorded<HubEvent>, view: HarnessView): { view: HarnessView; frames: ServerMessage[] } {
  return encodeBatch([event], view);
}

/**
 * Encodes the events a watcher is handed together (one commit's, or a group commit's, events of
 * its session) as one delta: the operations of each event in order, with the last event's cursor,
 * so a client applies exactly what it would from one frame per event. Consecutive text appended
 * to one message goes as one operation. A turn's ending (its last text, the call's outcome, the
 * message's and the turn's end) is then one frame instead of four: fewer writes for ingress and
 * fewer messages for every client, which in a crowd is most of what streaming costs them.
 */
export function encodeBatch(events: readonly Recorded<HubEvent>[], view: HarnessView): { view: HarnessView; frames: ServerMessage[] } {
  const operations: DeltaMessage['operations'] = [];
  let cursor = 0;
  for (const event of events) {
    const next = evolveHarness(view, event);
    view = next.view;
    for (const op of next.ops) {
      const last = operations[operations.length - 1];
      if (op.type === 'append-text' && last?.type === 'append-text' && samePath(last.path, op.path)) last.value += op.value;
      else operations.push(op.type === 'append-text' ? { ...op } : op);
    }
    if (next.ops.length > 0) cursor = event.globalPosition;
  }
  return { view, frames: operations.length === 0 ? [] : [{ type: 'delta', operations, cursor }] };
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The full state, sent on connect and reconnect; `cursor` is the last event it includes. */
export function snapshot(view: HarnessView, cursor: number): StateMessage {
  return { type: 'state', state: view.state, cursor };
}

/** An error frame: the spec's `message`, plus our machine-readable `code` (one of `WIRE_ERROR_CODE_LIST`). */
export function errorFrame(code: WireErrorCode, message: string, cursor?: number): ErrorMessage {
  return cursor === undefined ? { type: 'error', message, code } : { type: 'error', message, code, cursor };
}

/** How each domain failure is named on this wire; exhaustive, so a new code must be named. */
export const WIRE_ERROR_CODES: { readonly [C in DomainErrorCode]: WireErrorCode } = {
  INVALID_COMMAND: 'invalid_command',
  SESSION_NOT_FOUND: 'session_not_found',
  SESSION_BUSY: 'session_busy',
  NO_ACTIVE_TURN: 'no_active_turn',
  TURN_NOT_FOUND: 'turn_not_found',
  APPROVAL_NOT_FOUND: 'approval_not_found',
  APPROVAL_ALREADY_RESOLVED: 'approval_already_resolved',
  APPROVER_NOT_ALLOWED: 'forbidden',
  APPROVAL_REQUESTER_EXCLUDED: 'forbidden',
  APPROVAL_ALREADY_VOTED: 'conflict',
  STREAM_VERSION_CONFLICT: 'conflict',
  EVENT_TOO_LARGE: 'too_large',
  INVALID_EVENT: 'internal',
  UNAUTHENTICATED: 'unauthenticated',
  FORBIDDEN: 'forbidden',
  RATE_LIMITED: 'rate_limited',
  CURSOR_OUT_OF_RANGE: 'cursor_out_of_range',
  PROVIDER_AUTH: 'provider_error',
  PROVIDER_RATE_LIMIT: 'provider_error',
  PROVIDER_DOWN: 'provider_error',
  TIMEOUT: 'timeout',
  INTERNAL: 'internal',
};

/**
 * Wire codes whose domain messages are not ours to show: they may quote a provider, a driver
 * or a queue library (addresses, hosts, stack fragments).
 */
const OPAQUE: Partial<Record<WireErrorCode, string>> = {
  internal: 'internal error',
  provider_error: 'the model provider failed',
};

/**
 * A domain failure as an error frame; internal details stay on the server. The one detail that
 * goes out is a used-up limit's wait (`retryAfterMs`, whole milliseconds).
 */
export function domainErrorFrame(error: { code: DomainErrorCode; message: string; details?: Record<string, unknown> }, cursor?: number): ErrorMessage {
  const code = WIRE_ERROR_CODES[error.code];
  const frame = errorFrame(code, OPAQUE[code] ?? error.message, cursor);
  const wait = retryAfterMsIn(error.details);
  return wait === undefined ? frame : { ...frame, retryAfterMs: wait };
}

/** For a failure that is not a domain error: the client gets the id to quote; the log has the rest. */
export function internalErrorFrame(correlationId: string): ErrorMessage {
  return errorFrame('internal', `internal error (correlation id ${correlationId})`);
}
