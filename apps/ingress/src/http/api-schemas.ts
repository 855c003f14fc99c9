import { getSchemaPath } from '@nestjs/swagger';
import { z } from 'zod';
import { Actor, EventMetadata, HarnessState, HubEvent, Protocol, ScheduleSpec, Usage } from '@hub/domain';
import { APPROVAL_STATUSES, SESSION_STATUSES, type ApprovalView, type SessionView, type TurnView, type UsageReport } from '@hub/projections';
import type { ScheduleView } from '@hub/schedules';
import { Outcome, TenantPolicy } from '@hub/policy';

// The response bodies of the routes a client reads (the console is typed from them: STYLE.md,
// "the API client is typed from the API document"). Written in zod beside the domain's own zod
// schemas (events, harness state, actor), turned into the document's `components.schemas` by
// zod's JSON Schema output; each read model's schema is checked against its TypeScript view at
// compile time, so a field added to a view does not compile until it is documented here.

const at = z.string().describe('ISO 8601 time');
const cursor = z.string().nullable().describe('Pass back as `cursor` for the next page; null on the last');

const SessionViewSchema = z.object({
  sessionId: z.string(),
  status: z.enum(SESSION_STATUSES),
  openedVia: Protocol.nullable(),
  openedBy: z.string().nullable().describe('Key prefix of the API key that opened it'),
  title: z.string().nullable(),
  turnCount: z.number().int(),
  activeTurnId: z.string().nullable(),
  pendingApprovals: z.number().int(),
  usage: Usage,
  createdAt: at,
  lastActivityAt: at.describe(
    'ISO 8601 time of its last event; one that changes nothing else here (a text delta, a tool call in progress) moves it at most once every 5 s',
  ),
  position: z.number().int().describe('Global position of the event that last moved `lastActivityAt`'),
});

const TurnViewSchema = z.object({
  turnId: z.string(),
  status: z.string(),
  requestedVia: Protocol.nullable(),
  requestedAt: at,
  startedAt: at.nullable(),
  endedAt: at.nullable(),
  durationMs: z.number().int().nullable(),
  provider: z.string().nullable(),
  model: z.string().nullable(),
  modelCalls: z.number().int(),
  toolCalls: z.number().int(),
  usage: Usage,
  endReason: z.string().nullable(),
  errorCode: z.string().nullable(),
});

const ApprovalViewSchema = z.object({
  approvalId: z.string(),
  sessionId: z.string(),
  turnId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  arguments: z.unknown().describe("The tool's input as the model gave it"),
  riskTier: z.string(),
  reason: z.string(),
  requestedVia: Protocol.nullable(),
  requestedAt: at,
  deadlineAt: at.nullable(),
  status: z.enum(APPROVAL_STATUSES),
  resolution: z
    .object({
      decision: z.enum(['approved', 'denied', 'abandoned', 'escalated']),
      by: Actor.nullable(),
      via: Protocol.nullable(),
      at,
      reason: z.string().nullable(),
    })
    .nullable(),
  quorum: z
    .object({
      required: z.number().int().describe('Distinct approvals it needs'),
      approvals: z.number().int().describe('Distinct approvals so far'),
      approvers: z.object({ roles: z.array(z.string()).optional(), keys: z.array(z.string()).optional(), groups: z.array(z.string()).optional() }).nullable(),
      requesterMayApprove: z.boolean(),
      votes: z.array(z.object({ by: Actor, via: Protocol, at, reason: z.string().nullable() })),
    })
    .nullable()
    .describe('For an approval that needs several approvers, named ones, or not the requester (ADR 0048); null when the first answer decides'),
  position: z.number().int().describe('Global position of the event that last changed it (the live feed cursor)'),
});

/**
 * An event as the log holds it: each event of the union (`type`, `data`) with its envelope. One
 * object per event type, not an `allOf` of the union and the envelope: each side forbids the
 * other's fields (`additionalProperties: false`), so no event could match both.
 */
const envelope = {
  eventId: z.string(),
  tenantId: z.string(),
  streamId: z.string(),
  streamPosition: z.number().int(),
  globalPosition: z.number().int().describe('The cursor every transport frame carries'),
  createdAt: at,
  metadata: EventMetadata,
};
const recorded = HubEvent.options.map((event) => event.extend(envelope));
const RecordedEvent = z.discriminatedUnion('type', recorded as [(typeof recorded)[number], ...typeof recorded]);

const ScheduleTickSchema = z.object({
  scheduledAt: at,
  outcome: z.enum(['pending', 'started', 'buffered', 'skipped', 'missed', 'refused']),
  reason: z.string().nullable(),
  source: z.enum(['schedule', 'trigger', 'backfill']),
  sessionId: z.string().nullable().describe('The session the tick ran on (or would have)'),
  turnId: z.string().nullable(),
  startedAt: at.nullable().describe('When the turn was actually submitted'),
});

const ScheduleViewSchema = z.object({
  id: z.string(),
  clientKey: z.string().nullable(),
  spec: ScheduleSpec,
  paused: z.boolean(),
  note: z.string().nullable(),
  createdBy: Actor,
  createdAt: at,
  updatedAt: at,
  nextRunAt: at.nullable(),
  lastRun: ScheduleTickSchema.nullable(),
});

const UsageTotalsShape = {
  turns: z
    .object({ completed: z.number().int(), failed: z.number().int(), cancelled: z.number().int(), delivered: z.number().int(), open: z.number().int() })
    .describe('Turns by how they ended; open: queued or running'),
  modelCalls: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  toolCalls: z.record(z.string(), z.number().int()).describe('Tool calls started, by executor'),
  approvals: z.number().int().describe('Approvals answered'),
  approvalWaitMs: z.number().int().describe('Time the answered approvals waited, summed'),
};
const UsageTotalsSchema = z.object(UsageTotalsShape);
const UsageReportSchema = z.object({
  from: z.string().describe('First UTC day, YYYY-MM-DD'),
  to: z.string().describe('Last UTC day, YYYY-MM-DD'),
  key: z.string().nullable(),
  days: z.array(
    z.object({
      day: z.string(),
      keyPrefix: z.string().nullable().describe('The key that requested the turns; null: none did (a schedule)'),
      ...UsageTotalsShape,
    }),
  ),
  totals: UsageTotalsSchema,
  asOf: z.number().int().describe('The log position the numbers include'),
});

/** Every response schema, by the name it has in the document. */
const SCHEMAS = {
  Actor,
  Usage,
  HarnessState,
  RecordedEvent,
  SessionView: SessionViewSchema,
  TurnView: TurnViewSchema,
  ApprovalView: ApprovalViewSchema,
  SessionList: z.object({ sessions: z.array(SessionViewSchema), nextCursor: cursor }),
  TurnList: z.object({ sessionId: z.string(), turns: z.array(TurnViewSchema), nextCursor: cursor }),
  ApprovalList: z.object({ approvals: z.array(ApprovalViewSchema), nextCursor: cursor }),
  EventPage: z.object({
    sessionId: z.string(),
    events: z.array(RecordedEvent),
    next: z.number().int().nullable().describe('The `after` of the next page; null at the end'),
  }),
  SessionState: z.object({ state: HarnessState, cursor: z.number().int().describe('Global position of the last event folded') }),
  ApprovalAnswer: z.object({
    approvalId: z.string(),
    decision: z.enum(['approved', 'denied']).describe('The answer sent'),
    status: z
      .enum(['pending', 'approved', 'denied'])
      .describe("The approval's status after this answer: `pending` when it was an approval short of the quorum (the call still waits)"),
    approvals: z.number().int().optional().describe('With `pending`: distinct approvals so far, this one included'),
    required: z.number().int().optional().describe('With `pending`: how many distinct approvals the call needs'),
  }),
  ScheduleView: ScheduleViewSchema,
  ScheduleList: z.object({ schedules: z.array(ScheduleViewSchema) }),
  ScheduleTickList: z.object({ ticks: z.array(ScheduleTickSchema) }),
  FireTimes: z.object({ fireTimes: z.array(at) }),
  UsageTotals: UsageTotalsSchema,
  UsageReport: UsageReportSchema,
  ApprovalPolicy: TenantPolicy,
  PolicyView: z.object({
    version: z.number().int().describe('0: no policy set yet (every tool keeps its own default)'),
    policy: TenantPolicy,
    setAt: at.nullable(),
    setBy: Actor.nullable(),
  }),
  PolicyExplanation: z.object({
    version: z.number().int().describe('The policy version explained'),
    outcome: Outcome,
    rule: z.object({ index: z.number().int().nullable().describe('null: the default'), id: z.string() }),
    approval: z
      .object({ required: z.number().int(), approvers: z.unknown().optional(), requesterMayApprove: z.boolean(), deadline: z.unknown().optional() })
      .nullable(),
    reason: z.string(),
    trace: z.array(z.object({ index: z.number().int(), id: z.string(), matched: z.boolean(), why: z.string() })),
  }),
  Problem: z
    .object({
      type: z.string(),
      title: z.string(),
      status: z.number().int(),
      detail: z.string(),
      code: z.string().describe('One of the documented error codes'),
    })
    .catchall(z.unknown())
    .describe('RFC 9457 problem+json'),
} as const;

export type ApiSchemaName = keyof typeof SCHEMAS;

/** `{ $ref }` to a named schema, for `@ApiOkResponse({ schema: apiRef('SessionList') })`. */
export function apiRef(name: ApiSchemaName): { $ref: string } {
  return { $ref: getSchemaPath(name) };
}

/** The schemas as OpenAPI 3.0 components, each named schema used by another as a `$ref`. */
export function apiSchemaComponents(): Record<string, object> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(SCHEMAS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { target: 'openapi-3.0', uri: (id) => getSchemaPath(id), unrepresentable: 'any' });
  // `$id` and `$schema` are JSON Schema's; OpenAPI names a component by its key.
  return Object.fromEntries(
    Object.entries(schemas).map(([id, s]) => [id, Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$id' && k !== '$schema'))]),
  );
}

// Compile-time: each read model's documented schema has exactly its view's fields, each narrower
// than or equal to the view's type (a status documented as an enum is a `string` in the view).
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
type Documents<S extends z.ZodType, V> = z.infer<S> extends V ? SameKeys<z.infer<S>, V> : false;
const views: [
  Documents<typeof SessionViewSchema, SessionView>,
  Documents<typeof TurnViewSchema, TurnView>,
  Documents<typeof ApprovalViewSchema, ApprovalView>,
] = [true, true, true];
void views;
const scheduleViews: [Documents<typeof ScheduleViewSchema, ScheduleView>] = [true];
void scheduleViews;
const usageViews: [Documents<typeof UsageReportSchema, UsageReport>] = [true];
void usageViews;
