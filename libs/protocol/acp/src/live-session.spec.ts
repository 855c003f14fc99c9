import { attach, detach, emptyLiveState, heartbeat, mayControl, takeover, type LiveResult, type LiveState } from './live-session';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:01:00.000Z';
const ok = (r: LiveResult): LiveState => {
  if (!r.ok) throw new Error(`refused: ${r.reason}`);
  return r.state;
};
const a = (s: LiveState, clientId: string, mode: 'observer' | 'controller', takeoverFlag = false) =>
  attach(s, { sessionId: 's', clientId, mode, takeover: takeoverFlag }, T0);

describe('live session attach/detach', () => {
  it('one controller, many observers; a second controller needs takeover', () => {
    let s = ok(a(emptyLiveState(), 'tui', 'controller'));
    s = ok(a(s, 'portal', 'observer'));
    const refused = a(s, 'web', 'controller');
    expect(refused).toEqual({ ok: false, reason: 'controller_already_attached', activeControllerId: 'tui' });
    const r = a(s, 'web', 'controller', true);
    expect(r.ok && r.response).toEqual(expect.objectContaining({ previous_controller_id: 'tui', active_controller_id: 'web' }));
    s = ok(r);
    expect(s.clients['tui'].mode).toBe('observer');
    expect(s.clients['web']).toEqual(expect.objectContaining({ mode: 'controller', prompt_injection: true, permission_routing: true }));
  });

  it('only the controller may control; observers never; nobody attached means anyone', () => {
    expect(mayControl(emptyLiveState(), null)).toBe(true);
    let s = ok(a(emptyLiveState(), 'portal', 'observer'));
    expect(mayControl(s, 'portal')).toBe(false);
    expect(mayControl(s, null)).toBe(true);
    s = ok(a(s, 'tui', 'controller'));
    expect(mayControl(s, 'tui')).toBe(true);
    expect(mayControl(s, null)).toBe(false);
    s = ok(takeover(s, 'portal', T1));
    expect([mayControl(s, 'portal'), mayControl(s, 'tui')]).toEqual([true, false]);
  });

  it('detach releases control; heartbeat keeps ownership and merges metadata', () => {
    let s = ok(attach(emptyLiveState(), { sessionId: 's', clientId: 'tui', mode: 'controller', takeover: false, _meta: { harn: { surface: 'tui' } } }, T0));
    s = ok(heartbeat(s, 'tui', { harn: { cwd: '/w' } }, T1));
    expect(s.clients['tui']).toEqual(
      expect.objectContaining({ mode: 'controller', attached_at: T0, last_seen_at: T1, metadata: { surface: 'tui', cwd: '/w' } }),
    );
    const d = detach(s, 'tui');
    expect(d.ok && d.response).toEqual(expect.objectContaining({ previous_controller_id: 'tui', active_controller_id: null, clients: [] }));
    expect(detach(ok(d), 'tui')).toEqual(expect.objectContaining({ ok: false, reason: 'unknown_client_id' }));
    expect(takeover(ok(d), 'ghost', T1)).toEqual(expect.objectContaining({ ok: false, reason: 'unknown_client_id' }));
  });

  it('re-attaching the controller as observer releases control', () => {
    const s = ok(a(ok(a(emptyLiveState(), 'tui', 'controller')), 'tui', 'observer'));
    expect(s.controllerId).toBeNull();
  });
});
