import { BridgeReply, ProtocolLine } from '@hub/protocol-zene';

/** Why the hub cannot take requests: unreachable or unhealthy (`PROVIDER_DOWN`), or the key is refused (`PROVIDER_AUTH`). */
export interface PreflightFailure {
  code: 'PROVIDER_DOWN' | 'PROVIDER_AUTH';
  message: string;
}

const PREFLIGHT_TIMEOUT_MS = 5_000;

/**
 * Before any request runs: `GET /health` (Postgres and Redis answer) and an authenticated
 * `GET /v1/zene/ping` (the key is accepted). Either failing is exit 3.
 */
export async function preflight(hubUrl: string, apiKey: string): Promise<PreflightFailure | null> {
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(new URL(path, hubUrl), { headers, signal: AbortSignal.timeout(PREFLIGHT_TIMEOUT_MS) });
  try {
    const [health, ping] = await Promise.all([get('/health'), get('/v1/zene/ping', { Authorization: `Bearer ${apiKey}` })]);
    if (ping.status === 401 || ping.status === 403) return { code: 'PROVIDER_AUTH', message: `the hub at ${hubUrl} refused HUB_API_KEY (HTTP ${ping.status})` };
    if (health.status !== 200) return { code: 'PROVIDER_DOWN', message: `the hub at ${hubUrl} is not healthy (HTTP ${health.status}): ${await health.text()}` };
    if (ping.status !== 200) return { code: 'PROVIDER_DOWN', message: `the hub at ${hubUrl} does not serve the zene protocol (HTTP ${ping.status})` };
    return null;
  } catch (e) {
    return { code: 'PROVIDER_DOWN', message: `cannot reach the hub at ${hubUrl}: ${describe(e)}` };
  }
}

/** How a `POST /v1/zene` ended, short of the reply itself. */
export type PostFailure = { kind: 'deadline' } | { kind: 'refused'; message: string } | { kind: 'broken'; message: string };

export interface PostOptions {
  hubUrl: string;
  apiKey: string;
  body: unknown;
  deadlineMs: number;
  mode: 'bridge' | 'protocol';
}

/** Sends one request line and hands each reply line (validated) to `onLine` as it arrives. */
export async function postRequest(opts: PostOptions, onLine: (line: BridgeReply | ProtocolLine) => Promise<void>): Promise<PostFailure | null> {
  const url = new URL('/v1/zene', opts.hubUrl);
  if (opts.mode === 'protocol') url.searchParams.set('mode', 'protocol');
  const signal = AbortSignal.timeout(opts.deadlineMs);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${opts.apiKey}`, 'Content-Type': 'application/x-ndjson' },
      body: `${JSON.stringify(opts.body)}\n`,
      signal,
    });
    if (res.status === 401 || res.status === 403) return { kind: 'refused', message: `the hub refused HUB_API_KEY (HTTP ${res.status})` };
    if (!res.body) return { kind: 'broken', message: `empty answer from the hub (HTTP ${res.status})` };
    for await (const raw of bodyLines(res.body)) {
      const line = parseReply(raw, opts.mode);
      if (!line) return { kind: 'broken', message: `unexpected answer from the hub (HTTP ${res.status}): ${raw.slice(0, 300)}` };
      await onLine(line);
    }
    return null;
  } catch (e) {
    return signal.aborted ? { kind: 'deadline' } : { kind: 'broken', message: `lost the hub: ${describe(e)}` };
  }
}

function parseReply(raw: string, mode: PostOptions['mode']): BridgeReply | ProtocolLine | null {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null; // not JSON: the caller reports the raw text
  }
  const parsed = (mode === 'bridge' ? BridgeReply : ProtocolLine).safeParse(json);
  return parsed.success ? parsed.data : null;
}

async function* bodyLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    pending += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (line) yield line;
    }
  }
  if (pending.trim()) yield pending.trim();
}

function describe(e: unknown): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  return err.cause?.code ?? err.cause?.message ?? err.message ?? String(e);
}
