import { A2A_PUSH_CONFIG_DELETED, A2A_PUSH_CONFIG_SET } from '@hub/domain';
import { foldPushConfigs, pushAuthHeaders, pushConfigOf, pushConfigWire, type PushConfig } from './push';

const config = (configId: string, turnId: string, over: Partial<PushConfig> = {}): PushConfig => ({
  configId,
  turnId,
  url: `https://example.com/${configId}`,
  token: null,
  authentication: null,
  ...over,
});
const set = (c: PushConfig, globalPosition: number) => ({ type: A2A_PUSH_CONFIG_SET, data: c, globalPosition });
const del = (configId: string, turnId: string, globalPosition: number) => ({ type: A2A_PUSH_CONFIG_DELETED, data: { configId, turnId }, globalPosition });

describe('push configs folded from a session’s push stream', () => {
  const log = [
    set(config('a', 't1'), 10),
    set(config('b', 't1'), 11),
    set(config('c', 't2'), 12),
    set(config('a', 't1', { url: 'https://example.com/a2' }), 13),
    del('b', 't1', 14),
  ];

  it('are per task, in the order set; a second set of the same id replaces it; a delete removes it', () => {
    const byTurn = foldPushConfigs(log);
    expect(byTurn.get('t1')).toEqual([config('a', 't1', { url: 'https://example.com/a2' })]);
    expect(byTurn.get('t2')).toEqual([config('c', 't2')]);
  });

  it('as of a position: what was live then (the outbox reads each event’s configs so)', () => {
    expect(
      foldPushConfigs(log, 11)
        .get('t1')
        ?.map((c) => c.configId),
    ).toEqual(['a', 'b']);
    expect(foldPushConfigs(log, 9).size).toBe(0);
  });

  it('go on the wire as TaskPushNotificationConfig, the task id naming session and turn', () => {
    expect(pushConfigWire('s1', config('a', 't1', { token: 'tok' }))).toEqual({ id: 'a', taskId: 's1/t1', url: 'https://example.com/a', token: 'tok' });
  });

  it('a client’s id is kept; without one the edge gives one', () => {
    expect(pushConfigOf({ url: 'u', id: 'mine' }, 't', 'https://x/', () => 'fresh').configId).toBe('mine');
    expect(pushConfigOf({ url: 'u', id: '' }, 't', 'https://x/', () => 'fresh')).toEqual({
      configId: 'fresh',
      turnId: 't',
      url: 'https://x/',
      token: null,
      authentication: null,
    });
  });

  it('authenticate as the SDK’s sender does: authentication as Authorization, else the token header', () => {
    expect(pushAuthHeaders({ token: 'tok', authentication: null })).toEqual({ 'x-a2a-notification-token': 'tok' });
    expect(pushAuthHeaders({ token: 'tok', authentication: { scheme: 'Bearer', credentials: 'c' } })).toEqual({ authorization: 'Bearer c' });
    expect(pushAuthHeaders({ token: null, authentication: null })).toEqual({});
  });
});
