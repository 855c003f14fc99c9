import { A2A_PUSH_CONFIG_DELETED, A2A_PUSH_CONFIG_SET, HubEvent, type Recorded } from '@hub/domain';
import type { PushConfig } from '@hub/protocol-a2a';
import { messagesOfSession, type PushFact } from './outbox';

// What the push outbox writes for a batch, without the database: which events of which task
// reach which config, in which frames, as of the configs live at each event.

let pos = 0;
const meta = { correlationId: 'c', actor: { type: 'api_key' as const, id: 'k' }, protocol: 'a2a' as const };
function rec(type: string, data: Record<string, unknown>): Recorded<HubEvent> {
  pos += 1;
  return {
    ...HubEvent.parse({ type, data }),
    eventId: `e${pos}`,
    tenantId: 't',
    streamId: 'session-s1',
    streamPosition: pos,
    globalPosition: pos,
    createdAt: '2026-11-26T12:00:00.000Z',
    metadata: meta,
  } as Recorded<HubEvent>;
}
function fact(type: string, data: object): PushFact {
  pos += 1;
  return { tenant_id: 't', stream_id: 'a2a-push-s1', type, data, globalPosition: pos };
}
const config = (configId: string, turnId: string): PushConfig => ({
  configId,
  turnId,
  url: `https://example.com/${configId}`,
  token: `tok-${configId}`,
  authentication: null,
});
const states = (bodies: string[]) =>
  bodies
    .map((b) => JSON.parse(b) as { task?: { status: { state: string } }; statusUpdate?: { status: { state: string } }; artifactUpdate?: unknown })
    .map((f) => f.task?.status.state ?? f.statusUpdate?.status.state ?? 'artifact');

describe('messagesOfSession', () => {
  const T = 'a2a-m-1';
  const opened = rec('SessionOpened', { sessionId: 's1', openedVia: 'a2a' });
  const requested = rec('TurnRequested', { turnId: T, userMessageId: `${T}:u`, prompt: 'hi', context: {}, busyPolicy: 'enqueue' });
  const setA = fact(A2A_PUSH_CONFIG_SET, config('a', T));
  const started = rec('TurnStarted', { turnId: T });
  const other = rec('TurnRequested', { turnId: 'other', userMessageId: 'other:u', prompt: 'x', context: {}, busyPolicy: 'enqueue' });
  const text = rec('TextDelta', { turnId: T, messageId: `${T}:m`, callId: `${T}:c0`, offset: 0, text: 'hello' });
  const deleteA = fact(A2A_PUSH_CONFIG_DELETED, { configId: 'a', turnId: T });
  const completed = rec('TurnCompleted', { turnId: T, text: 'hello', stopReason: 'end_turn', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } });
  const session = [opened, requested, started, other, text, completed];
  const push = [setA, deleteA];

  it('a config set: the task as it stands first, then each update of its task (none of another turn), until it is deleted', () => {
    const out = messagesOfSession('t', 's1', session, push, 0);
    expect(out.every((m) => m.config_id === 'a' && m.task_id === `s1/${T}` && m.headers['x-a2a-notification-token'] === 'tok-a')).toBe(true);
    expect(out.map((m) => m.event_position)).toEqual([setA.globalPosition, started.globalPosition, text.globalPosition]);
    expect(states(out.map((m) => m.body))).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'artifact']);
    expect(new Set(out.map((m) => m.id)).size).toBe(out.length);
  });

  it('only the batch after the checkpoint, with the task folded from before it', () => {
    const out = messagesOfSession('t', 's1', session, push, started.globalPosition);
    expect(out.map((m) => m.event_position)).toEqual([text.globalPosition]);
    expect(JSON.parse(out[0].body)).toEqual({
      artifactUpdate: expect.objectContaining({ taskId: `s1/${T}`, artifact: expect.objectContaining({ parts: [{ text: 'hello' }] }) }),
    });
  });

  it('no config of the task, no message', () => {
    expect(messagesOfSession('t', 's1', session, [], 0)).toEqual([]);
  });
});
