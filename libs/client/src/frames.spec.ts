import type { HarnessState } from './api-types';
import { foldFrame, turnOutcome, type TransportFrame } from './frames';

const user = (id: string, turnId: string) => ({ id, role: 'user' as const, content: 'q', status: 'complete' as const, turnId });
const answer = (id: string, turnId: string, extra = {}) => ({ id, role: 'assistant' as const, content: 'a', status: 'complete' as const, turnId, ...extra });

describe('foldFrame', () => {
  const state: HarnessState = { status: 'running', messages: [answer('a1', 't1', { content: 'Hel', status: 'streaming' })] } as HarnessState;
  const delta = (cursor: number, value: string): TransportFrame => ({
    type: 'delta',
    cursor,
    operations: [{ type: 'append-text', path: ['messages', '0', 'content'], value }],
  });

  it('applies deltas in order and moves the cursor', () => {
    const a = foldFrame({ state, cursor: 7 }, delta(8, 'lo'));
    const b = foldFrame(a, delta(9, '!'));
    expect(b).toMatchObject({ cursor: 9, duplicate: false });
    expect(b.state?.messages[0]?.content).toBe('Hello!');
  });

  it('drops a delta at or before its cursor: a frame sent again across a reconnect is not applied twice', () => {
    const seen = foldFrame({ state, cursor: 8 }, delta(8, 'lo'));
    expect(seen).toMatchObject({ cursor: 8, duplicate: true });
    expect(seen.state?.messages[0]?.content).toBe('Hel');
  });

  it('a state frame replaces whatever was held; an error changes nothing', () => {
    const fresh = { status: 'idle', messages: [] } as unknown as HarnessState;
    expect(foldFrame({ state, cursor: 50 }, { type: 'state', state: fresh, cursor: 3 })).toEqual({ state: fresh, cursor: 3, duplicate: false });
    expect(foldFrame({ state, cursor: 7 }, { type: 'error', message: 'x', code: 'internal' })).toEqual({ state, cursor: 7, duplicate: false });
  });
});

describe('turnOutcome', () => {
  const s = (status: HarnessState['status'], ...messages: unknown[]) => ({ status, messages }) as HarnessState;

  it('undefined before the turn shows and while it is the last and running', () => {
    expect(turnOutcome(s('running', user('u1', 't1')), 't2')).toBeUndefined();
    expect(turnOutcome(s('running', user('u1', 't1'), answer('a1', 't1')), 't1')).toBeUndefined();
  });

  it('ok once the session stopped, or a later turn started after it', () => {
    expect(turnOutcome(s('idle', user('u1', 't1'), answer('a1', 't1')), 't1')).toBe('ok');
    expect(turnOutcome(s('running', user('u1', 't1'), answer('a1', 't1'), user('u2', 't2')), 't1')).toBe('ok');
  });

  it('failed when its answer failed, or the session errored with it last', () => {
    expect(turnOutcome(s('error', user('u1', 't1'), answer('a1', 't1', { status: 'error' })), 't1')).toBe('failed');
    expect(turnOutcome(s('running', user('u1', 't1'), answer('a1', 't1', { stopReason: 'failed' }), user('u2', 't2')), 't1')).toBe('failed');
  });
});
