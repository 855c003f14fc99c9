import { DomainError } from '../errors';
import type { HubEvent } from '../events/events';
import type { Recorded } from '../events/recorded';
import { planFork, restingCursors } from './fork-plan';

const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
const turn = (id: string): HubEvent[] => [
  { type: 'TurnRequested', data: { turnId: id, userMessageId: `${id}:u`, prompt: `p ${id}`, context: {}, busyPolicy: 'enqueue' } },
  { type: 'TurnStarted', data: { turnId: id } },
  { type: 'MessageStarted', data: { turnId: id, messageId: `${id}:a`, role: 'assistant' } },
  {
    type: 'ToolCallStarted',
    data: { turnId: id, messageId: `${id}:a`, toolCallId: 'c1', name: 'read_file', input: { path: 'a' }, policy: 'allow', executor: 'builtin' },
  },
  { type: 'ToolCallCompleted', data: { turnId: id, toolCallId: 'c1', status: 'complete', output: 'x', durationMs: 1 } },
  { type: 'MessageCompleted', data: { turnId: id, messageId: `${id}:a` } },
  { type: 'TurnCompleted', data: { turnId: id, text: 'done', stopReason: 'end_turn', usage } },
];
// Global positions step by 10: other sessions' events sit in between.
const recorded = (events: HubEvent[]): Recorded<HubEvent>[] =>
  events.map((e, i) => ({
    ...e,
    eventId: `e${i + 1}`,
    tenantId: 't',
    streamId: 'session-p',
    streamPosition: i + 1,
    globalPosition: (i + 1) * 10,
    createdAt: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`,
    metadata: { correlationId: `c${i}`, protocol: 'transport' },
  }));
const parent = recorded([{ type: 'SessionOpened', data: { sessionId: 'p', openedVia: 'transport' } }, ...turn('t1'), ...turn('t2')]);
const meta = { correlationId: 'fork', protocol: 'internal' as const };

describe('planFork', () => {
  it('is at rest after the opening and after each turn ends, nowhere inside a turn', () => {
    expect([...restingCursors(parent)]).toEqual([10, 80, 150]);
  });

  it('copies the history up to a turn boundary, names the child in SessionOpened, and closes with SessionForked', () => {
    const plan = planFork(parent, 'child', 80, meta);
    expect(plan.at).toBe(80);
    expect(plan.events.map((e) => e.type)).toEqual(['SessionOpened', ...turn('t1').map((e) => e.type), 'SessionForked']);
    expect(plan.events[0].data).toEqual({ sessionId: 'child', openedVia: 'transport' });
    expect(plan.events[1]).toEqual({
      type: 'TurnRequested',
      data: parent[1].data,
      metadata: {
        correlationId: 'c1',
        protocol: 'transport',
        forkedFrom: { sessionId: 'p', eventId: 'e2', streamPosition: 2, globalPosition: 20, createdAt: '2026-01-01T00:00:01.000Z' },
      },
    });
    expect(plan.events.at(-1)).toEqual({
      type: 'SessionForked',
      data: { parentSessionId: 'p', parentCursor: 80, parentStreamPosition: 8, copiedEvents: 8 },
      metadata: meta,
    });
  });

  it("takes a cursor between two of the session's events as the last event before it, and the end when none is given", () => {
    expect(planFork(parent, 'c', 85, meta).at).toBe(80);
    expect(planFork(parent, 'c', undefined, meta).at).toBe(150);
  });

  it('refuses a cursor in the middle of a tool call, naming the nearest valid cursors', () => {
    let error: unknown;
    try {
      planFork(parent, 'c', 50, meta);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('INVALID_COMMAND');
    expect((error as DomainError).message).toMatch(/inside a turn.*nearest cursors a fork may be taken at: 10 and 80/);
    expect((error as DomainError).details).toEqual({ nearestValidCursors: [10, 80] });
  });

  it('refuses a cursor past the end, and a session that does not exist', () => {
    expect(() => planFork(parent, 'c', 151, meta)).toThrow(/after the session's last event \(150\).*150/);
    expect(() => planFork(parent, 'c', 5, meta)).toThrow(/before the session was first at rest.*10/);
    expect(() => planFork([], 'c', 5, meta)).toThrow(/does not exist/);
  });

  it('refuses the end of a session whose turn is still running', () => {
    const running = parent.slice(0, 12);
    expect(() => planFork(running, 'c', undefined, meta)).toThrow(/inside a turn.*80/);
  });
});
