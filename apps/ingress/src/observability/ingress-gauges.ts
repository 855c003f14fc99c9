import { asSystem } from '@hub/event-store';
import type { Pool } from 'pg';
import { HubQueues } from '@hub/queue';
import { observeGauge, oncePerScrape } from '@hub/telemetry';
import type { OpenSockets } from '../transport/open-sockets';

/**
 * The gauges only ingress can read, observed at each scrape: open sockets per protocol, active
 * sessions per protocol, pending approvals and the age of the oldest (from the read models), and
 * queue depth per queue and state (every ingress reports the same shared queues; take the max across instances).
 */
export function registerIngressGauges(sockets: OpenSockets, pool: Pool, queues: HubQueues): void {
  // Counts over every tenant: system work.
  const db = asSystem(pool, 'metrics');
  observeGauge('hub.sockets.open', 'WebSockets open on this ingress, by protocol', async () =>
    [...sockets.byProtocol()].map(([protocol, value]) => ({ value, attributes: { protocol } })),
  );
  // One query feeds both approval gauges of a scrape.
  const pending = oncePerScrape(async () => {
    const { rows } = await db.query<{ n: string; oldest: string | null }>(
      `SELECT count(*)::text AS n, extract(epoch FROM now() - min(requested_at))::text AS oldest FROM read_approvals WHERE status = 'pending'`,
    );
    return { n: Number(rows[0]?.n ?? 0), oldest: Number(rows[0]?.oldest ?? 0) };
  });
  observeGauge('hub.approvals.pending', 'Approvals waiting for an answer (all tenants)', async () => [{ value: (await pending()).n }]);
  observeGauge('hub.approvals.oldest_pending_age.seconds', 'Age of the oldest pending approval', async () => [{ value: (await pending()).oldest }], 's');
  observeGauge('hub.sessions.active', 'Sessions with a turn running or waiting for an approval, by the protocol that opened them (read model)', async () => {
    const { rows } = await db.query<{ protocol: string | null; status: string; n: string }>(
      `SELECT opened_via AS protocol, status, count(*)::text AS n FROM read_sessions WHERE status <> 'idle' GROUP BY opened_via, status`,
    );
    return rows.map((r) => ({ value: Number(r.n), attributes: { protocol: r.protocol ?? 'unknown', status: r.status } }));
  });
  observeGauge('hub.queue.jobs', 'Jobs in each queue, by state', async () =>
    (await queues.counts()).flatMap(({ queue, counts }) => Object.entries(counts).map(([state, value]) => ({ value, attributes: { queue, state } }))),
  );
}
