import { DeltaOperation, HarnessState } from '@hub/domain';
import { z } from 'zod';

// Pinned to specs/harness-transport-protocol.md (no public upstream; this document is the
// contract). Additions, all optional so a spec client and server still interoperate:
// `submit.busyPolicy` and `submit.id` (a client-chosen idempotency id), the `approve` / `deny`
// commands, `cursor` on every server message, and `code` on errors.

export const SubmitCommand = z.object({
  type: z.literal('submit'),
  prompt: z.string(),
  busyPolicy: z.enum(['enqueue', 'reject', 'interrupt']).optional(),
  id: z.string().min(1).max(128).optional(),
});
export type SubmitCommand = z.infer<typeof SubmitCommand>;

export const CancelCommand = z.object({ type: z.literal('cancel') });
export type CancelCommand = z.infer<typeof CancelCommand>;

const decision = <T extends 'approve' | 'deny'>(type: T) =>
  z.object({ type: z.literal(type), approvalId: z.string().min(1), reason: z.string().max(2000).optional() });

export const ApproveCommand = decision('approve');
export type ApproveCommand = z.infer<typeof ApproveCommand>;
export const DenyCommand = decision('deny');
export type DenyCommand = z.infer<typeof DenyCommand>;

export const HarnessCommand = z.discriminatedUnion('type', [SubmitCommand, CancelCommand, ApproveCommand, DenyCommand]);
export type HarnessCommand = z.infer<typeof HarnessCommand>;
export type HarnessCommandType = HarnessCommand['type'];
export const HARNESS_COMMAND_TYPES: readonly HarnessCommandType[] = ['submit', 'cancel', 'approve', 'deny'];

/**
 * Commands one frame may carry. A frame is decided as a whole; without a cap one 30 KB frame
 * of submits became a thousand turns (issue 11, defect 5). Over it: `invalid_message`, nothing decided.
 */
export const MAX_COMMANDS_PER_MESSAGE = 16;

export const ClientMessage = z.object({ type: z.literal('commands'), commands: z.array(HarnessCommand).max(MAX_COMMANDS_PER_MESSAGE) });
export type ClientMessage = z.infer<typeof ClientMessage>;

/** The global position of the last event the state includes; resume from it. */
const Cursor = z.number().int().nonnegative();

export const StateMessage = z.object({ type: z.literal('state'), state: HarnessState, cursor: Cursor });
export type StateMessage = z.infer<typeof StateMessage>;

export const DeltaMessage = z.object({ type: z.literal('delta'), operations: z.array(DeltaOperation), cursor: Cursor });
export type DeltaMessage = z.infer<typeof DeltaMessage>;

/**
 * Every `code` an error frame may carry, and nothing else: decode errors, `invalid_request` (bad
 * connect URL), and the names of domain failures (`WIRE_ERROR_CODES`). Messages are ours;
 * internal details (addresses, library messages) stay in the server log under the correlation id.
 */
export const WIRE_ERROR_CODE_LIST = [
  'invalid_json',
  'invalid_message',
  'unknown_command',
  'invalid_request',
  'invalid_command',
  'session_not_found',
  'session_busy',
  'no_active_turn',
  'turn_not_found',
  'approval_not_found',
  'approval_already_resolved',
  'conflict',
  'too_large',
  'unauthenticated',
  'forbidden',
  'rate_limited',
  'cursor_out_of_range',
  'provider_error',
  'timeout',
  'internal',
] as const;
export const WireErrorCode = z.enum(WIRE_ERROR_CODE_LIST);
export type WireErrorCode = z.infer<typeof WireErrorCode>;

export const ErrorMessage = z.object({
  type: z.literal('error'),
  message: z.string(),
  code: WireErrorCode.optional(),
  cursor: Cursor.optional(),
  /** With `rate_limited`: how long until the tenant's limit lets this through (an HTTP 429's Retry-After). */
  retryAfterMs: z.number().int().positive().optional(),
});
export type ErrorMessage = z.infer<typeof ErrorMessage>;

export const ServerMessage = z.discriminatedUnion('type', [StateMessage, DeltaMessage, ErrorMessage]);
export type ServerMessage = z.infer<typeof ServerMessage>;
