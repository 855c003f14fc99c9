import { z } from 'zod';

// OpenHarness wire messages, pinned to specs/openharness-protocol-v1.md (v1.0.0-draft) and the
// upstream JSON Schema SynSwarm/OpenHarness schema/openharness-v1.draft.json @ 9c86454.
// Unknown keys are ignored at every level (spec §4): `z.object` drops them on input, while the
// free-form objects we keep as data (task_hint, shell, environment_state, attachments,
// extensions) are `z.looseObject` so that nothing a shell sent there is lost.

/** The wire format version this hub writes on every reply. */
export const OPENHARNESS_PROTOCOL_VERSION = '1.0.0';
/** Every 1.x request is served; this is what replies advertise (spec §3). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = ['1.0.0'];
/** Our vendor namespace inside `extensions` (spec §4: reverse-DNS keys). */
export const HUB_EXTENSION = 'dev.harnesshub';

/** Semver as the upstream schema's `semverString` pattern. */
export const SEMVER_PATTERN = /^(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

const Extensions = z.record(z.string(), z.unknown());
const Capabilities = z.record(z.string(), z.unknown());

export const Auth = z.looseObject({
  tenant_id: z.string().optional(),
  credential_ref: z.string().optional(),
  session_id: z.string().optional(),
});
export type Auth = z.infer<typeof Auth>;

export const TaskHint = z.looseObject({
  sop_id: z.string().optional(),
  plugin_id: z.string().optional(),
  business_key: z.string().optional(),
});
export type TaskHint = z.infer<typeof TaskHint>;

export const Continuation = z.looseObject({
  run_id: z.string().optional(),
  sop_id: z.string().optional(),
  continuation_token: z.string().optional(),
});
export type Continuation = z.infer<typeof Continuation>;

/** `privacy_tier` is read by `classifyEnvironment`, which treats a value it does not know as secret. */
export const EnvironmentState = z.looseObject({
  privacy_tier: z.string().optional(),
  os: z.string().optional(),
  active_window: z.string().optional(),
  screen_hash: z.string().optional(),
});
export type EnvironmentState = z.infer<typeof EnvironmentState>;

export const AttachmentRef = z.looseObject({
  ref_id: z.string().optional(),
  uri: z.string().optional(),
  asset_id: z.string().optional(),
  mime_type: z.string().optional(),
  filename: z.string().optional(),
  size_bytes: z.number().int().nonnegative().optional(),
});
export type AttachmentRef = z.infer<typeof AttachmentRef>;

export const ShellIdentity = z.looseObject({
  shell_kind: z.string().min(1).optional(),
  shell_version: z.string().optional(),
  locale: z.string().optional(),
  timezone: z.string().optional(),
});
export type ShellIdentity = z.infer<typeof ShellIdentity>;

export const RequestContext = z.object({
  session_id: z.string().optional(),
  conversation_id: z.string().optional(),
  user_intent: z.string().optional(),
  task_hint: TaskHint.optional(),
  continuation: Continuation.optional(),
  environment_state: EnvironmentState.optional(),
  attachments: z.array(AttachmentRef).optional(),
  shell: ShellIdentity.optional(),
  extensions: Extensions.optional(),
});
export type RequestContext = z.infer<typeof RequestContext>;

export const RequestMessage = z.object({
  protocol_version: z.string().regex(SEMVER_PATTERN),
  request_id: z.string().min(1).optional(),
  correlation_id: z.string().min(1).optional(),
  capabilities: Capabilities.optional(),
  request: z.object({
    auth: Auth.optional(),
    context: RequestContext.optional(),
    extensions: Extensions.optional(),
  }),
});
export type RequestMessage = z.infer<typeof RequestMessage>;

/**
 * Our extension (`extensions["dev.harnesshub"]`, on `request` or on `request.context`; the
 * request's wins): the wait budget, the busy policy of a new turn, and a shell's answer to a
 * `request_approval` directive.
 */
export const HubExtension = z.object({
  wait_ms: z.number().int().nonnegative().optional(),
  busy_policy: z.enum(['enqueue', 'reject', 'interrupt']).optional(),
  approval: z
    .object({
      decision: z.enum(['approved', 'denied']),
      reason: z.string().max(2000).optional(),
      approval_id: z.string().min(1).optional(),
    })
    .optional(),
});
export type HubExtension = z.infer<typeof HubExtension>;

// ---- Engine → Shell ----

export const CapabilityDenial = z.looseObject({
  capability: z.string().min(1),
  code: z.string().optional(),
  message: z.string().optional(),
});
export type CapabilityDenial = z.infer<typeof CapabilityDenial>;

export const ActionDirective = z.looseObject({
  action_type: z.string().min(1),
  priority: z.enum(['low', 'normal', 'high', 'critical']).optional(),
  execution: z.enum(['sequential', 'parallel']).optional(),
  risk_tier: z.enum(['safe', 'caution', 'dangerous']).optional(),
  requires_user_approval: z.boolean().optional(),
  deadline_ms: z.number().int().nonnegative().optional(),
  payload: z.record(z.string(), z.unknown()).optional(),
  extensions: Extensions.optional(),
});
export type ActionDirective = z.infer<typeof ActionDirective>;

export const ErrorObject = z.looseObject({
  code: z.string().min(1),
  message: z.string().optional(),
  retryable: z.boolean().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ErrorObject = z.infer<typeof ErrorObject>;

export const ResponseMessage = z.looseObject({
  protocol_version: z.string().regex(SEMVER_PATTERN),
  request_id: z.string().min(1).optional(),
  correlation_id: z.string().min(1).optional(),
  supported_protocol_versions: z.array(z.string().regex(SEMVER_PATTERN)).optional(),
  supported_capabilities: Capabilities.optional(),
  capability_denials: z.array(CapabilityDenial).optional(),
  response: z.looseObject({
    status: z.enum(['success', 'error']),
    engine_latency_ms: z.number().nonnegative().optional(),
    action_directives: z.array(ActionDirective).optional(),
    error: ErrorObject.optional(),
  }),
});
export type ResponseMessage = z.infer<typeof ResponseMessage>;
