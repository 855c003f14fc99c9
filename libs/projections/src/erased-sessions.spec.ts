import { foldBatch } from './apply-batch';
import { approvalsProjection, sessionsProjection, turnsProjection } from './index';
import type { ProjectedEvent } from './projection';
import { SessionScript } from './testing/events';

const T = '00000000-0000-0000-0000-0000000000aa';

/** The tombstone an erasure appends on the tenant's admin stream. */
function erased(sessionId: string, globalPosition: number): ProjectedEvent {
  return {
    type: 'SessionErased',
    data: { sessionId, reason: 'request', archivedTo: null, streams: [] },
    metadata: { correlationId: 'c' },
    tenantId: T,
    streamId: 'tenant-admin',
    globalPosition,
    createdAt: '2026-11-23T11:00:00.000Z',
  };
}

describe('an erased session in the read models', () => {
  const gone = new SessionScript(T, 'gone').turnWithApproval('t1');
  const kept = new SessionScript(T, 'kept', { position: 100, time: Date.parse('2026-11-23T10:30:00.000Z') }).turnWithApproval('t1');
  const again = new SessionScript(T, 'gone', { position: 300, time: Date.parse('2026-11-23T12:00:00.000Z') });
  again.add({ type: 'SessionOpened', data: { sessionId: 'gone', openedVia: 'acp' } });
  const batch = [...gone.events, ...kept.events, erased('gone', 200), ...again.events];

  it.each([
    ['sessions', sessionsProjection],
    ['turns', turnsProjection],
    ['approvals', approvalsProjection],
  ] as const)("%s: the tombstone deletes the session's rows, later events start it afresh, other sessions stay", (_, def) => {
    const folded = foldBatch(def as never, batch, []);
    expect(folded.erased).toEqual([[T, 'gone']]);
    const rows = [...folded.after.values()].flat() as { session_id: string; opened_via?: string }[];
    expect(rows.some((r) => r.session_id === 'kept')).toBe(true);
    const goneRows = rows.filter((r) => r.session_id === 'gone');
    if (def === sessionsProjection) expect(goneRows).toEqual([expect.objectContaining({ opened_via: 'acp', turn_count: 0 })]);
    else expect(goneRows).toEqual([]);
    expect(folded.advance.skipped).toBe(0);
  });
});
