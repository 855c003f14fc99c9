import { TransportTestClient, hubJson } from '@hub/testing';
import { AcpSdkClient } from '../acp/testing/sdk-client';
import { runLine } from '../zene/testing/spawn-host';
import { acpOutcome, frameOutcome, httpOutcome, type Outcome, type RolesWorld, type Who } from './roles-world';
import type { Ctx } from './roles-row';

// How each protocol's own client does one thing, reduced to the matrix's outcome (roles-surfaces.ts).

export const http = async (w: RolesWorld, method: string, path: string, key: string, body?: unknown) =>
  httpOutcome((await hubJson(method, `${w.url}${path}`, key, body)).status);

/** Runs `f` with an initialized ACP client of `key`; a JSON-RPC error is the outcome. */
export async function withAcp(w: RolesWorld, key: string, f: (c: AcpSdkClient) => Promise<Outcome>): Promise<Outcome> {
  const c = AcpSdkClient.ws(w.url, key);
  try {
    await c.request('initialize', { protocolVersion: 1 });
    return await f(c);
  } catch (e) {
    return acpOutcome(e);
  } finally {
    await c.close();
  }
}

/** One submit on the transport socket: the error frame's code, or ok once the turn ended. */
export async function transportSubmit(w: RolesWorld, key: string, session: string): Promise<Outcome> {
  const c = await TransportTestClient.connect(w.url, key, { session });
  try {
    await c.waitFor('snapshot or refusal', (x) => x.state !== null || x.errors().length > 0);
    if (c.errors().length) return frameOutcome(c.errors()[0].code);
    const before = c.state?.messages.length ?? 0;
    c.send([{ type: 'submit', prompt: 'hello' }]);
    await c.waitFor(
      'an answer or a refusal',
      (x) => x.errors().length > 0 || ((x.state?.messages.length ?? 0) >= before + 2 && x.state?.status === 'idle' && x.lastAssistant()?.status === 'complete'),
    );
    return frameOutcome(c.errors()[0]?.code);
  } finally {
    await c.close();
  }
}

/**
 * One command on the transport socket of `session` (cancel, approve): the refusal, or ok once
 * `done` holds. A command neither refused nor done within 10 s is no outcome the table has (it
 * was `ok`, so an accepted command that changed nothing passed as allowed).
 */
export async function transportCommand(
  w: RolesWorld,
  key: string,
  session: string,
  command: Record<string, unknown>,
  done: () => Promise<boolean>,
): Promise<Outcome> {
  const c = await TransportTestClient.connect(w.url, key, { session });
  try {
    await c.waitFor('snapshot or refusal', (x) => x.state !== null || x.errors().length > 0);
    if (c.errors().length === 0) c.send([command]);
    for (let i = 0; i < 400 && c.errors().length === 0 && !(await done()); i++) await new Promise((r) => setTimeout(r, 25));
    if (c.errors().length === 0 && !(await done())) return 'neither refused nor done';
    return frameOutcome(c.errors()[0]?.code);
  } finally {
    await c.close();
  }
}

export const openharness = async (w: RolesWorld, key: string, context: Record<string, unknown>, hub?: Record<string, unknown>): Promise<Outcome> => {
  const res = await hubJson('POST', `${w.url}/v1/openharness`, key, {
    protocol_version: '1.0.0',
    request_id: w.fresh('oh'),
    request: { context, ...(hub ? { extensions: { 'dev.harnesshub': hub } } : {}) },
  });
  const error = res.body['response']?.['error'] as { code?: string } | undefined;
  return error === undefined
    ? 'ok'
    : error.code === 'forbidden'
      ? 'forbidden'
      : error.code === 'not_found'
        ? 'not_found'
        : `openharness ${res.status} ${error.code}`;
};

export const zene = async (
  w: RolesWorld,
  key: string,
  line: Record<string, unknown>,
  mode = '',
): Promise<{ status: number; body: Record<string, unknown> }> => {
  const res = await fetch(`${w.url}/v1/zene${mode}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
    body: runLine(line),
  });
  const lines = (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { status: res.status, body: lines.at(-1) ?? {} };
};
/** A zene reply as the matrix reads it: a refused key is `PROVIDER_AUTH` (a run: HTTP 403; a cancel: its error line). */
export const zeneOutcome = (r: { status: number; body: Record<string, unknown> }): Outcome => {
  const code = r.body['error_code'] ?? (r.body['error'] as { code?: string } | undefined)?.code;
  const message = String(r.body['error_message'] ?? (r.body['error'] as { message?: string } | undefined)?.message);
  if (r.status === 403 || (code === 'PROVIDER_AUTH' && /may not/.test(message))) return 'forbidden';
  if (r.body['ok'] === true || r.body['type'] === 'ack') return 'ok';
  return code === 'INVALID_REQUEST' && /not found/.test(message) ? 'not_found' : `zene ${r.status} ${JSON.stringify(r.body)}`;
};

/** An OpenEnv episode of `key` with one step taken (so it has something to read). */
export async function episodeOf(w: RolesWorld, key: string): Promise<Ctx> {
  const reset = await hubJson('POST', `${w.url}/v1/openenv/calc/reset`, key, {});
  const episodeId = String(reset.body['observation']?.['episode_id'] ?? reset.body['episode_id'] ?? '');
  await hubJson('POST', `${w.url}/v1/openenv/calc/step`, key, { action: { message: 'hello' }, episode_id: episodeId });
  const state = await hubJson('GET', `${w.url}/v1/openenv/calc/state`, key);
  return { session: String(state.body['session_id']), episodeId };
}

export const idle = async (w: RolesWorld, who: Who): Promise<Ctx> => ({ session: await w.idleSession(w.ownerOf(who)) });
export const pending = async (w: RolesWorld, who: Who): Promise<Ctx> => w.pendingApproval(w.ownerOf(who));
export const fresh = async (w: RolesWorld): Promise<Ctx> => ({ session: w.fresh('new') });

/** The session's approval as an operator reads it: an answered one has moved on. */
export const moved = (w: RolesWorld, ctx: Ctx) => async () => (await w.approvalStatus(ctx.session)) !== 'pending';

/**
 * The session's turn as an operator reads it: a cancelled one stopped. (Not `moved`: a cancelled
 * turn's approval stays `pending` in the transport state, so a cancel never counted as done.)
 */
export const cancelled = (w: RolesWorld, ctx: Ctx) => async () => (await w.lastAssistant(ctx.session))?.stopReason === 'cancelled';
