import type { SessionSummary } from '../api/types';
import { applySessionChange, applySessionErasure, type SessionPages } from './live-sessions';

const session = (sessionId: string, position: number, more: Partial<SessionSummary> = {}): SessionSummary =>
  ({
    sessionId,
    position,
    status: 'idle',
    openedVia: 'transport',
    openedBy: 'hub_k',
    title: null,
    turnCount: 1,
    activeTurnId: null,
    pendingApprovals: 0,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    createdAt: '2026-11-25T00:00:00.000Z',
    lastActivityAt: '2026-11-25T00:00:00.000Z',
    ...more,
  }) as SessionSummary;

const ids = (d: SessionPages | undefined) => d?.pages.map((p) => p.sessions.map((s) => s.sessionId));
const list = (...pages: SessionSummary[][]): SessionPages => ({
  pages: pages.map((sessions) => ({ sessions, nextCursor: null })),
  pageParams: pages.map(() => undefined),
});

describe('a sessions feed change applied to the loaded list', () => {
  const loaded = list([session('c', 30), session('b', 20)], [session('a', 10)]);

  it('moves a session that changed to the top, from whatever page it was on', () => {
    expect(ids(applySessionChange(loaded, session('a', 40), {}))).toEqual([['a', 'c', 'b'], []]);
  });

  it('puts a new session on top', () => {
    expect(ids(applySessionChange(loaded, session('d', 40), {}))).toEqual([['d', 'c', 'b'], ['a']]);
  });

  it('drops a session that no longer matches the filters, and never adds one that does not', () => {
    const running = list([session('c', 30, { status: 'running' })]);
    expect(ids(applySessionChange(running, session('c', 31, { status: 'idle' }), { status: 'running' }))).toEqual([[]]);
    expect(ids(applySessionChange(running, session('z', 32, { openedVia: 'acp' }), { protocol: 'transport' }))).toEqual([['c']]);
  });

  it('ignores a change no newer than the row shown (a resumed feed repeats)', () => {
    const same = applySessionChange(loaded, session('b', 20, { title: 'stale' }), {});
    expect(same).toBe(loaded);
  });

  it('leaves a list that has not loaded alone', () => {
    expect(applySessionChange(undefined, session('a', 1), {})).toBeUndefined();
  });
});

describe('a sessions feed erasure applied to the loaded list', () => {
  const loaded = list([session('c', 30), session('b', 20)], [session('a', 10)]);
  const erasure = (sessionId: string) => ({ sessionId, erasedAt: '2026-11-25T00:00:01.000Z', position: 50 });

  it('takes the session off whichever page showed it', () => {
    expect(ids(applySessionErasure(loaded, erasure('a')))).toEqual([['c', 'b'], []]);
    expect(ids(applySessionErasure(loaded, erasure('c')))).toEqual([['b'], ['a']]);
  });

  it('leaves a list that did not show it as it was', () => {
    expect(applySessionErasure(loaded, erasure('z'))).toBe(loaded);
    expect(applySessionErasure(undefined, erasure('a'))).toBeUndefined();
  });
});
