import type { HubEvent, Recorded } from '@hub/domain';
import { encode, initialAcpView, type AcpView } from './encode';
import { hubMcpServers } from './mcp-servers';
import { foldLive, type LiveFact } from './live-session';

// The ACP side of live input (user_message, reminder_emitted), session MCP servers, and the
// live-session facts fold.

const rec = (events: HubEvent[]): Recorded<HubEvent>[] =>
  events.map((e, i) => ({
    ...e,
    eventId: `e${i}`,
    tenantId: 't',
    streamId: 'session-s',
    streamPosition: i + 1,
    globalPosition: 10 + i,
    createdAt: '2026-01-01T00:00:00.000Z',
    metadata: { correlationId: 'c' },
  }));

function updates(events: HubEvent[]) {
  let view: AcpView = initialAcpView();
  return rec(events).flatMap((e) => {
    const r = encode(e, view, 's');
    view = r.view;
    return r.notifications.map((n) => n.params.update);
  });
}

describe('live input on ACP', () => {
  const reminder = {
    reminderId: 'r1',
    body: 'Re-read it.',
    tags: ['ws'],
    dedupeKey: null,
    ttlTurns: 2,
    roleHint: 'developer' as const,
    mode: 'finish_step' as const,
    propagate: null,
    preserveOnCompact: false,
    source: 'host',
    meta: {},
  };
  const steer = {
    turnId: 'inj',
    userMessageId: 'inj:u',
    prompt: 'go left',
    context: { delivery: 'steer', acp: { inject: 'steer', messageId: 'msg-1' } },
    busyPolicy: 'enqueue' as const,
  };

  it('a steered message is a user_message with the agent-owned messageId; a rendered reminder is reminder_emitted', () => {
    const out = updates([
      { type: 'TurnRequested', data: steer },
      { type: 'ReminderQueued', data: reminder },
      { type: 'ReminderEmitted', data: { turnId: 't1', reminderId: 'r1', beforeStep: 1, renderedRole: 'system' } },
      { type: 'UserMessageInjected', data: { turnId: 't1', fromTurnId: 'inj', messageId: 'inj:u', text: 'go left', beforeStep: 1 } },
    ]);
    expect(out.map((u) => u.sessionUpdate)).toEqual(['user_message_chunk', 'reminder_emitted', 'user_message']);
    expect(out[1]).toEqual({
      sessionUpdate: 'reminder_emitted',
      _meta: {
        harn: {
          turnId: 't1',
          reminder: expect.objectContaining({
            reminderId: 'r1',
            body: 'Re-read it.',
            roleHint: 'developer',
            renderedRole: 'system',
            ttlTurns: 2,
            source: 'host',
          }),
        },
      },
    });
    expect(out[2]).toEqual({
      sessionUpdate: 'user_message',
      _meta: { harn: expect.objectContaining({ messageId: 'msg-1', turnId: 't1', mode: 'steer', content: { type: 'text', text: 'go left' } }) },
    });
  });

  it('a queued inject is a user_message when its turn starts; an audit_only reminder is never emitted', () => {
    const out = updates([
      { type: 'TurnRequested', data: { ...steer, context: { acp: { inject: 'queue', messageId: 'msg-2' } } } },
      { type: 'TurnStarted', data: { turnId: 'inj' } },
      { type: 'ReminderQueued', data: { ...reminder, mode: 'audit_only' } },
      { type: 'ReminderEmitted', data: { turnId: 'inj', reminderId: 'r1', beforeStep: null, renderedRole: null } },
    ]);
    expect(out.map((u) => [u.sessionUpdate, (u._meta as { harn?: { messageId?: string } } | undefined)?.harn?.messageId])).toEqual([
      ['user_message_chunk', 'inj:u'],
      ['user_message', 'msg-2'],
    ]);
  });
});

describe('hubMcpServers', () => {
  it('maps ACP stdio and http servers onto the hub spec', () => {
    expect(
      hubMcpServers([
        { name: 'fs', command: 'node', args: ['srv.js'], env: [{ name: 'A', value: '1' }] },
        { type: 'http', name: 'web', url: 'https://mcp.example.com/mcp', headers: [{ name: 'Authorization', value: 'Bearer x' }] },
      ]),
    ).toEqual({
      ok: true,
      servers: [
        { name: 'fs', transport: 'stdio', command: ['node', 'srv.js'], env: { A: '1' } },
        { name: 'web', transport: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
      ],
    });
  });

  it('refuses sse, duplicate names and malformed entries', () => {
    expect(hubMcpServers([{ type: 'sse', name: 's', url: 'https://x.example/sse', headers: [] }])).toEqual({
      ok: false,
      message: expect.stringContaining('sse MCP servers are not supported'),
    });
    expect(
      hubMcpServers([
        { name: 'a', command: 'x' },
        { name: 'a', command: 'y' },
      ]),
    ).toEqual({ ok: false, message: expect.stringContaining('used twice') });
    expect(hubMcpServers([{ name: 'a' }])).toEqual({ ok: false, message: expect.stringContaining('mcpServers[0]: command') });
  });
});

describe('foldLive', () => {
  it('replays attach, takeover, heartbeat and detach into who controls the session', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const facts: LiveFact[] = [
      { type: 'AcpClientAttached', data: { clientId: 'tui', mode: 'controller', takeover: false, metadata: {}, at } },
      { type: 'AcpClientAttached', data: { clientId: 'portal', mode: 'observer', takeover: false, metadata: { surface: 'portal' }, at } },
      { type: 'AcpControlTakenOver', data: { clientId: 'portal', previousControllerId: 'tui', at } },
      { type: 'AcpClientHeartbeat', data: { clientId: 'portal', metadata: { focus: 'diff' }, at } },
    ];
    const s = foldLive(facts);
    expect([s.controllerId, s.clients['tui']?.mode, s.clients['portal']?.metadata]).toEqual(['portal', 'observer', { surface: 'portal', focus: 'diff' }]);
    expect(foldLive([...facts, { type: 'AcpClientDetached', data: { clientId: 'portal', reason: 'client_exit', at } }]).controllerId).toBeNull();
  });
});
