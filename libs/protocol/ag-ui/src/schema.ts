import { PROTOCOL_VERSION } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { z } from 'zod';

// AG-UI, pinned to @ag-ui/core 1.0.0 (protocol "1.0"): its own zod schemas (RunAgentInputSchema,
// EventSchemas) are the contract, so nothing here re-declares the wire. What is ours: the answer
// an approval interrupt expects, and the hub's options in `forwardedProps["dev.harnesshub"]`.

/** The AG-UI protocol version this hub speaks (RUN_STARTED.protocolVersion). */
export const AG_UI_PROTOCOL_VERSION: string = PROTOCOL_VERSION;

/** `RunAgentInput`, as @ag-ui/core 1.0.0 declares it. */
export const RunAgentInput = RunAgentInputSchema;
export type RunAgentInput = z.infer<typeof RunAgentInputSchema>;

/** Our vendor namespace inside `forwardedProps` and event `metadata`. */
export const HUB_NAMESPACE = 'dev.harnesshub';

/** `Interrupt.reason` of a tool call waiting for a person's approval. */
export const APPROVAL_REASON = 'tool_approval';

/**
 * What a `resume` entry answering an approval interrupt carries as `payload` (also its
 * `responseSchema`). `status: "cancelled"` without a payload is a denial.
 */
export const ApprovalAnswer = z.object({
  decision: z.enum(['approved', 'denied']),
  reason: z.string().max(2000).optional(),
});
export type ApprovalAnswer = z.infer<typeof ApprovalAnswer>;

/** `ApprovalAnswer` as the JSON Schema an interrupt's `responseSchema` names. */
export const APPROVAL_RESPONSE_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    decision: { type: 'string', enum: ['approved', 'denied'] },
    reason: { type: 'string', maxLength: 2000 },
  },
  required: ['decision'],
  additionalProperties: false,
};

/** `forwardedProps["dev.harnesshub"]`: the busy policy of a new turn (as on the other wires). */
export const HubProps = z.object({
  busyPolicy: z.enum(['enqueue', 'reject', 'interrupt']).optional(),
});
export type HubProps = z.infer<typeof HubProps>;
