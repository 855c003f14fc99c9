import { HubStack, TransportTestClient, hubJson } from '@hub/testing';

// The world the role matrix runs in (roles-matrix.e2e.spec.ts): one tenant with a key of each
// role, and the sessions an action needs, opened by whoever the row says owns them. Everything
// here is done as a real client would, through bin/hub processes.

export const ROLES = ['admin', 'operator', 'approver', 'viewer', 'client'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Who acts: a key of each role on a session an operator opened, and a client key on a session it
 * opened itself (a client key acts only on its own sessions).
 */
export const WHO = [...ROLES, 'client, own session'] as const;
export type Who = (typeof WHO)[number];

/** An answer reduced to what the matrix compares; anything else is kept as text and fails the row. */
export type Outcome = 'ok' | 'forbidden' | 'not_found' | string;

export class RolesWorld {
  keys = {} as Record<Role, string>;
  prefixes = {} as Record<Role, string>;
  tenantId = '';
  private seq = 0;

  constructor(readonly stack: HubStack) {}

  static async start(label: string): Promise<RolesWorld> {
    const w = new RolesWorld(await HubStack.start({ label, workers: 1 }));
    const t = await w.stack.createTenant('roles');
    w.tenantId = t.tenantId;
    w.keys.admin = t.apiKey;
    w.prefixes.admin = t.keyPrefix;
    for (const role of ROLES.filter((r) => r !== 'admin')) {
      const res = await hubJson('POST', `${w.stack.url}/v1/admin/keys`, t.apiKey, { name: role, role });
      w.keys[role] = String(res.body['apiKey']);
      w.prefixes[role] = String(res.body['prefix']);
    }
    if ((await hubJson('PUT', `${w.stack.url}/v1/openenv/calc`, t.apiKey, { description: 'arithmetic' })).status !== 200) throw new Error('no environment');
    return w;
  }

  get url(): string {
    return this.stack.url;
  }

  fresh(what: string): string {
    return `${what}-${++this.seq}`;
  }

  /** The key that acts for `who`, and the key that owns the session it acts on. */
  keyOf(who: Who): string {
    return who === 'client, own session' ? this.keys.client : this.keys[who];
  }

  ownerOf(who: Who): string {
    return who === 'client, own session' ? this.keys.client : this.keys.operator;
  }

  /** A transport client of `key` on `session`, with its first snapshot. */
  async socket(key: string, session: string): Promise<TransportTestClient> {
    const c = await TransportTestClient.connect(this.url, key, { session });
    await c.waitFor('snapshot', (x) => x.state !== null);
    return c;
  }

  /** A session of `key` with one finished turn. */
  async idleSession(key: string): Promise<string> {
    const id = this.fresh('s');
    const c = await this.socket(key, id);
    c.send([{ type: 'submit', prompt: 'read notes.txt' }]);
    await c.waitFor('the answer', (x) => x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete');
    await c.close();
    return id;
  }

  /** Submits a write on `session` as `key`, and waits for its approval: the approval's id. */
  async raiseApproval(key: string, session: string): Promise<string> {
    const c = await this.socket(key, session);
    c.send([{ type: 'submit', prompt: 'write "x" to a.txt' }]);
    await c.waitFor('the approval', (x) => x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending');
    const id = String(c.lastAssistant()?.toolCalls?.[0]?.approval?.id);
    await c.close();
    return id;
  }

  /** A session of `key` whose turn waits for an approval. */
  async pendingApproval(key: string): Promise<{ session: string; approvalId: string }> {
    const session = this.fresh('appr');
    return { session, approvalId: await this.raiseApproval(key, session) };
  }

  /** The session's transport state, read with an operator key. */
  async state(session: string): Promise<{
    status?: string;
    messages?: { role: string; status?: string; stopReason?: string; toolCalls?: { approval?: { status?: string } }[] }[];
  } | null> {
    const res = await hubJson('GET', `${this.url}/v1/sessions/${session}/state`, this.keys.operator);
    return res.status === 200 ? (res.body['state'] as never) : null;
  }

  /** The session's last answer, as an operator reads it. */
  async lastAssistant(session: string) {
    const s = await this.state(session);
    return [...(s?.messages ?? [])].reverse().find((m) => m.role === 'assistant');
  }

  async approvalStatus(session: string): Promise<string | undefined> {
    return (await this.lastAssistant(session))?.toolCalls?.[0]?.approval?.status;
  }

  /**
   * Waits until what an allowed action set going elsewhere (a re-drive's turns) has ended: no
   * turn is left without its end (completed, failed, cancelled) and nothing was appended for
   * 100 ms. Should some turn never end, 400 ms with nothing appended will do, as before; either
   * way at most about 30 s. (A fixed 400 ms after every allowed row was most of the matrix's time.)
   */
  async quiet(): Promise<void> {
    let last = await this.stack.countAllEvents();
    for (let stable = 0, i = 0; stable < 8 && i < 600; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const now = await this.stack.countAllEvents();
      stable = now === last ? stable + 1 : 0;
      last = now;
      if (stable >= 2 && (await this.turnsInFlight()) === 0) return;
    }
  }

  /** Turns of the tenant requested and not yet ended, straight from the log. */
  private async turnsInFlight(): Promise<number> {
    const [row] = await this.stack.query<{ n: string }>(
      `SELECT count(*) AS n FROM events r
        WHERE r.tenant_id = $1 AND r.type = 'TurnRequested'
          AND NOT EXISTS (SELECT 1 FROM events e WHERE e.tenant_id = r.tenant_id AND e.stream_id = r.stream_id
                          AND e.type IN ('TurnCompleted', 'TurnFailed', 'TurnCancelled') AND e.data->>'turnId' = r.data->>'turnId')`,
      [this.tenantId],
    );
    return Number(row.n);
  }

  /**
   * Brings a session to rest after a row ran (an approved write goes on, a cancelled turn ends):
   * what a row appends must not land in the next row's count. A turn still waiting is cancelled.
   */
  async settle(session: string): Promise<void> {
    for (let i = 0; i < 800; i++) {
      const s = await this.state(session);
      const last = [...(s?.messages ?? [])].reverse().find((m) => m.role === 'assistant');
      if (s === null || (s.status !== 'running' && last?.status !== 'streaming' && last?.status !== 'pending')) return;
      if (last?.toolCalls?.[0]?.approval?.status === 'pending' && i === 0) {
        const c = await this.socket(this.keys.operator, session);
        c.send([{ type: 'cancel' }]);
        await c.close();
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`session ${session} did not come to rest`);
  }
}

/** An HTTP status as the matrix reads it. */
export const httpOutcome = (status: number): Outcome => (status === 403 ? 'forbidden' : status === 404 ? 'not_found' : status < 300 ? 'ok' : `HTTP ${status}`);

/** A transport error frame's code as the matrix reads it (no error: ok). */
export const frameOutcome = (code: string | undefined): Outcome =>
  code === undefined ? 'ok' : code === 'forbidden' ? 'forbidden' : code === 'session_not_found' ? 'not_found' : `frame ${code}`;

/** An ACP JSON-RPC error as the matrix reads it: FORBIDDEN, or the resource-not-found of a session that does not exist. */
export function acpOutcome(e: unknown): Outcome {
  const err = e as { code?: number; data?: { code?: string } };
  if (err.data?.code === 'FORBIDDEN') return 'forbidden';
  if (err.code === -32002) return 'not_found';
  return `ACP ${JSON.stringify(e)}`;
}

/** A message of an OpenEnv refusal (ws error, harness error event) as the matrix reads it. */
export const messageOutcome = (message: string): Outcome =>
  /may not|needs an admin/.test(message) ? 'forbidden' : /not found|no episode/.test(message) ? 'not_found' : `message ${message}`;
