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

export const ClientMessage = z.object({ type: z.literal('commands'), commands: z.array(HarnessCommand) });
export type ClientMessage = z.infer<typeof ClientMessage>;

/** The global position of the last event the state includes; resume from it. */
const Cursor = z.number().int().nonnegative();

export const StateMessage = z.object({ type: z.literal('state'), state: HarnessState, cursor: Cursor });
export type StateMessage = z.infer<typeof StateMessage>;

export const DeltaMessage = z.object({ type: z.literal('delta'), operations: z.array(DeltaOperation), cursor: Cursor });
export type DeltaMessage = z.infer<typeof DeltaMessage>;

export const ErrorMessage = z.object({
  type: z.literal('error'),
  message: z.string(),
  code: z.string().optional(),
  cursor: Cursor.optional(),
});
export type ErrorMessage = z.infer<typeof ErrorMessage>;

export const ServerMessage = z.discriminatedUnion('type', [StateMessage, DeltaMessage, ErrorMessage]);
export type ServerMessage = z.infer<typeof ServerMessage>;
