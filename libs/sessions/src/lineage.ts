import {
  DomainError,
  REDRIVE_CONTEXT_KEY,
  planFork,
  type EpisodeReset,
  type RedriveContext,
  sessionStreamId,
  type EventMetadata,
  type HubEvent,
  type Recorded,
  type RedriveTarget,
  type SubmitTurn,
  type TurnRequested,
} from '@hub/domain';

/** The event store as forks and re-drives use it: a whole read, and one append to a new stream. */
export interface LineageLog {
  readStream(tenantId: string, streamId: string): Promise<{ version: number; events: Recorded<HubEvent>[] }>;
  append(
    tenantId: string,
    streamId: string,
    events: { type: string; data: unknown; metadata: EventMetadata }[],
    opts: { expectedVersion: 'no_stream'; idempotencyKey?: string },
  ): Promise<{ events: Recorded<HubEvent>[]; duplicate: boolean }>;
}

/** Forks and re-drives copy a session into memory once; past this many events they are refused. */
const DEFAULT_MAX_LINEAGE_EVENTS = 100_000;

/**
 * Forks and re-drives: sessions whose history starts from another session's. Both write only the
 * new session's stream (expected to be new: an existing id is refused), so the source stays as it
 * was, and its hash chain with it.
 */
export class SessionLineage {
  constructor(
    private readonly log: LineageLog,
    private readonly maxEvents = DEFAULT_MAX_LINEAGE_EVENTS,
  ) {}

  /**
   * Copies `parentId`'s history up to cursor `at` (see `planFork`) into the new session
   * `childId`, closed by `SessionForked`, in one append. `requestId` makes a retry idempotent.
   * `episode` is the parent's OpenEnv reset when the parent is an episode, so the edge can make
   * the child an episode of the same environment.
   */
  async fork(
    tenantId: string,
    parentId: string,
    childId: string,
    at: number | undefined,
    metadata: EventMetadata,
    requestId?: string,
  ): Promise<{ sessionId: string; at: number; copiedEvents: number; cursor: number; episode: EpisodeReset['data'] | null }> {
    const parent = await this.source(tenantId, parentId);
    const plan = planFork(parent, childId, at, metadata);
    const res = await this.appendNew(tenantId, childId, plan.events, requestId && `fork:${requestId}`);
    const forked = res.events.at(-1);
    if (forked?.type !== 'SessionForked') throw new DomainError('INVALID_COMMAND', 'this request id was already used for another request');
    const reset = plan.events.find((e) => e.type === 'EpisodeReset');
    return {
      sessionId: childId,
      at: forked.data.parentCursor,
      copiedEvents: forked.data.copiedEvents,
      cursor: forked.globalPosition,
      episode: reset ? (reset.data as EpisodeReset['data']) : null,
    };
  }

  /**
   * Opens `childId` as a re-drive of `sourceId` (`SessionOpened`, `SessionRedriven`) and returns
   * the source's user turns as submits for the new session, in order, to be dispatched like any
   * other turn: same turn ids and prompts, the source's context with the target in place of its
   * model or harness, and what the worker needs to serve recorded tool results.
   */
  async openRedrive(
    tenantId: string,
    sourceId: string,
    childId: string,
    target: RedriveTarget | null,
    tools: 'recorded' | 'live',
    metadata: EventMetadata & { protocol: NonNullable<EventMetadata['protocol']> },
    requestId?: string,
  ): Promise<{ sessionId: string; submits: SubmitTurn[]; duplicate: boolean }> {
    const source = await this.source(tenantId, sourceId);
    const requests = source.filter((e): e is Recorded<Extract<HubEvent, { type: 'TurnRequested' }>> => e.type === 'TurnRequested').map((e) => e.data);
    if (requests.length === 0) throw new DomainError('INVALID_COMMAND', `session ${sourceId} has no user turns to re-drive`);
    if (tools === 'recorded' && target && 'harness' in target) {
      throw new DomainError('INVALID_COMMAND', 'a wrapped harness runs its own tools: re-drive it with "tools": "live"');
    }
    const opened: { type: string; data: unknown; metadata: EventMetadata }[] = [
      { type: 'SessionOpened', data: { sessionId: childId, openedVia: metadata.protocol }, metadata },
      {
        type: 'SessionRedriven',
        data: { sourceSessionId: sourceId, sourceCursor: source[source.length - 1].globalPosition, target, tools, turnIds: requests.map((r) => r.turnId) },
        metadata,
      },
    ];
    const res = await this.appendNew(tenantId, childId, opened, requestId && `redrive:${requestId}`);
    if (res.events[1]?.type !== 'SessionRedriven') throw new DomainError('INVALID_COMMAND', 'this request id was already used for another request');
    const submits = requests.map((r): SubmitTurn => ({
      type: 'SubmitTurn',
      sessionId: childId,
      turnId: r.turnId,
      prompt: r.prompt,
      context: redrivenContext(r, sourceId, target, tools),
      busyPolicy: 'enqueue',
    }));
    return { sessionId: childId, submits, duplicate: res.duplicate };
  }

  private async source(tenantId: string, sessionId: string): Promise<Recorded<HubEvent>[]> {
    const { events } = await this.log.readStream(tenantId, sessionStreamId(sessionId));
    if (events.length === 0) throw new DomainError('SESSION_NOT_FOUND', `session ${sessionId} not found`);
    if (events.length > this.maxEvents) {
      throw new DomainError('INVALID_COMMAND', `session ${sessionId} has ${events.length} events; forks and re-drives are limited to ${this.maxEvents}`);
    }
    return events;
  }

  private async appendNew(
    tenantId: string,
    sessionId: string,
    events: { type: string; data: unknown; metadata: EventMetadata }[],
    idempotencyKey: string | undefined,
  ) {
    try {
      return await this.log.append(tenantId, sessionStreamId(sessionId), events, {
        expectedVersion: 'no_stream',
        ...(idempotencyKey ? { idempotencyKey } : {}),
      });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'STREAM_VERSION_CONFLICT') {
        throw new DomainError('STREAM_VERSION_CONFLICT', `session ${sessionId} already exists: choose another id for the new session`);
      }
      throw e;
    }
  }
}

/** The source turn's context with the target in place of its model or harness. */
function redrivenContext(
  request: TurnRequested['data'],
  sourceSessionId: string,
  target: RedriveTarget | null,
  tools: 'recorded' | 'live',
): Record<string, unknown> {
  const redrive: RedriveContext = { sourceSessionId, sourceTurnId: request.turnId, tools };
  if (target === null) return { ...request.context, [REDRIVE_CONTEXT_KEY]: redrive };
  const { harness: _harness, model: _model, [REDRIVE_CONTEXT_KEY]: _previous, ...rest } = request.context;
  return { ...rest, ...('model' in target ? { model: target.model } : { harness: target.harness }), [REDRIVE_CONTEXT_KEY]: redrive };
}
