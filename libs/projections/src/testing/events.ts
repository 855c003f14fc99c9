import type { HubEvent } from '@hub/domain';
import type { ProjectedEvent } from '../projection';

/** Test helper: recorded-looking events of one session, positions and times counting up. */
export class SessionScript {
  private position: number;
  private time: number;
  readonly events: ProjectedEvent[] = [];

  constructor(
    readonly tenantId: string,
    readonly sessionId: string,
    start = { position: 1, time: Date.parse('2026-11-23T10:00:00.000Z') },
  ) {
    this.position = start.position;
    this.time = start.time;
  }

  add(event: HubEvent | { type: string; data: unknown }, metadata: Record<string, unknown> = {}): ProjectedEvent {
    const e: ProjectedEvent = {
      type: event.type,
      data: event.data,
      metadata: { correlationId: 'c', protocol: 'transport', actor: { type: 'api_key', id: 'k1' }, ...metadata },
      tenantId: this.tenantId,
      streamId: `session-${this.sessionId}`,
      globalPosition: this.position++,
      createdAt: new Date((this.time += 100)).toISOString(),
    };
    this.events.push(e);
    return e;
  }

  /** SessionOpened, then one turn with a model call, a tool call behind an approval, and its end. */
  turnWithApproval(turnId: string, end: 'approve' | 'cancel' = 'approve'): this {
    if (this.events.length === 0) this.add({ type: 'SessionOpened', data: { sessionId: this.sessionId, openedVia: 'transport' } });
    this.add({ type: 'TurnRequested', data: { turnId, userMessageId: `${turnId}:u`, prompt: `please   run\n${turnId}`, context: {}, busyPolicy: 'enqueue' } });
    this.add({ type: 'TurnStarted', data: { turnId } });
    this.add({
      type: 'ModelCallStarted',
      data: { turnId, callId: `${turnId}:c0`, step: 0, provider: 'offline', model: 'echo', messageCount: 1, toolNames: ['shell'] },
    });
    this.add({ type: 'TextDelta', data: { turnId, messageId: `${turnId}:m`, callId: `${turnId}:c0`, offset: 0, text: 'ok' } });
    this.add({
      type: 'ModelCallCompleted',
      data: {
        turnId,
        callId: `${turnId}:c0`,
        step: 0,
        text: 'ok',
        toolCalls: [],
        finishReason: 'tool_calls',
        usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
      },
    });
    this.add({
      type: 'ToolCallStarted',
      data: { turnId, messageId: `${turnId}:m`, toolCallId: `${turnId}:t0`, name: 'shell', input: { cmd: 'ls' }, policy: 'ask', executor: 'builtin' },
    });
    this.add({
      type: 'ApprovalRequested',
      data: {
        turnId,
        approvalId: `${turnId}:a0`,
        toolCallId: `${turnId}:t0`,
        toolName: 'shell',
        input: { cmd: 'ls' },
        riskTier: 'high',
        reason: 'runs a command',
        deadlineAt: null,
      },
    });
    if (end === 'cancel') {
      this.add({ type: 'TurnCancelled', data: { turnId, reason: 'user', by: { type: 'api_key', id: 'k2' } } }, { protocol: 'acp' });
      return this;
    }
    this.add(
      {
        type: 'ApprovalResolved',
        data: {
          turnId,
          approvalId: `${turnId}:a0`,
          toolCallId: `${turnId}:t0`,
          decision: 'approved',
          by: { type: 'api_key', id: 'k2', name: 'ops' },
          via: 'openharness',
          reason: 'fine',
        },
      },
      { protocol: 'openharness' },
    );
    this.add({ type: 'ToolCallCompleted', data: { turnId, toolCallId: `${turnId}:t0`, status: 'complete', output: 'a b', durationMs: 3 } });
    this.add({
      type: 'TurnCompleted',
      data: { turnId, text: 'done', stopReason: 'end_turn', usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 } },
    });
    return this;
  }
}
