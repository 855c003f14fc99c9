import {
  bridgeReply,
  decode,
  DEFAULT_TIMEOUT_MS,
  errorLine,
  finalLine,
  rejected,
  ZERO_USAGE,
  type BridgeReply,
  type ProtocolLine,
  type ZeneErrorCode,
  type ZeneRequest,
} from '@hub/protocol-zene';
import type { HostArgs } from './args';
import { postRequest } from './hub-client';
import { writeLine, type InputLine } from './lines';

/** Requests that are not runs get this long from the hub. */
const CONTROL_TIMEOUT_MS = 10_000;

/** Exit codes of the spec: 0 answered (errors included), 2 bad input, 3 preflight/config, 4 runtime. */
export type ExitCode = 0 | 2 | 3 | 4;

/**
 * Writes one error in the host's mode: the flat reply, or a protocol `error` line. Used for
 * everything the host answers itself (bad input, config, preflight, a lost hub).
 */
export function writeError(bridgeCompat: boolean, ids: { request_id: string; session_id: string | null }, code: ZeneErrorCode, message: string): Promise<void> {
  process.stderr.write(`${JSON.stringify({ level: 'warn', msg: 'zene host error', code, message, request_id: ids.request_id })}\n`);
  const line = bridgeCompat
    ? bridgeReply({ request_id: ids.request_id, session_id: ids.session_id ?? '' }, rejected(code, message))
    : errorLine(ids, code, message, Date.now());
  return writeLine(line);
}

/** One `hub host` process after its preflight: decodes lines and hands them to `POST /v1/zene`. */
export class HostSession {
  /** Runs in flight: request id → session id, so a `cancel` without a session still finds it. */
  private readonly running = new Map<string, string>();

  constructor(
    private readonly args: HostArgs,
    private readonly hub: { url: string; apiKey: string },
  ) {}

  async single(lines: AsyncGenerator<InputLine>): Promise<ExitCode> {
    const first = await lines.next();
    if (first.done) {
      await writeError(this.args.bridgeCompat, { request_id: 'unknown', session_id: null }, 'INVALID_REQUEST', 'no request on stdin');
      return 2;
    }
    return this.handle(first.value);
  }

  /** Long-lived: every line is handled as it comes (runs overlap); at end of input, in-flight requests finish. */
  async serve(lines: AsyncGenerator<InputLine>): Promise<ExitCode> {
    const pending = new Set<Promise<ExitCode>>();
    for await (const item of lines) {
      const p = this.handle(item);
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }
    await Promise.all(pending);
    return 0;
  }

  async handle(item: InputLine): Promise<ExitCode> {
    if ('invalid' in item) return this.invalid({ request_id: 'unknown', session_id: null }, item.invalid);
    const decoded = decode(item.text, { maxInputBytes: this.args.maxInputBytes });
    if (!decoded.ok) return this.invalid(decoded.error, decoded.error.message);
    const request = this.withDefaults(decoded.request);
    if (this.args.bridgeCompat && request.type !== 'run') {
      return this.invalid(request, `bridge-compat mode answers run requests only; send ${request.type} in protocol mode`);
    }
    return this.forward(request);
  }

  private async invalid(ids: { request_id: string; session_id?: string | null }, message: string): Promise<ExitCode> {
    await writeError(this.args.bridgeCompat, { request_id: ids.request_id, session_id: ids.session_id ?? null }, 'INVALID_REQUEST', message);
    return 2;
  }

  private withDefaults(request: ZeneRequest): ZeneRequest {
    if (request.type === 'run' && !request.busy_policy && this.args.busyPolicy) return { ...request, busy_policy: this.args.busyPolicy };
    if (request.type === 'cancel' && !request.session_id) {
      const target = request.target_request_id ?? request.cancel_request_id ?? '';
      return { ...request, session_id: this.running.get(target) ?? null };
    }
    return request;
  }

  private async forward(request: ZeneRequest): Promise<ExitCode> {
    const timeoutMs = request.type === 'run' ? Math.ceil(request.timeout_ms ?? DEFAULT_TIMEOUT_MS) : CONTROL_TIMEOUT_MS;
    const ids = { request_id: request.request_id, session_id: request.session_id ?? null };
    if (request.type === 'run') this.running.set(request.request_id, request.session_id);
    let ended = false;
    let exit: ExitCode = 0;
    const mode = this.args.bridgeCompat ? 'bridge' : 'protocol';
    const failure = await postRequest({ hubUrl: this.hub.url, apiKey: this.hub.apiKey, body: request, deadlineMs: timeoutMs + this.args.deadlineMarginMs, mode }, async (line) => {
      await writeLine(line);
      ended ||= isLast(line);
      if (errorCodeOf(line) === 'INVALID_REQUEST') exit = 2;
    }).finally(() => this.running.delete(request.request_id));
    if (!failure && ended) return exit;
    if (failure?.kind === 'deadline') {
      // The hub cancels the turn at timeout_ms; this is the host's own hard limit behind it.
      const started = Date.now() - timeoutMs - this.args.deadlineMarginMs;
      const reply = { request_id: ids.request_id, session_id: ids.session_id ?? '' };
      await writeLine(this.args.bridgeCompat ? bridgeReply(reply, { kind: 'timeout', usage: ZERO_USAGE }) : finalLine(reply, { kind: 'timeout', usage: ZERO_USAGE }, { tsMs: Date.now(), latencyMs: Date.now() - started }));
      return 0;
    }
    if (failure?.kind === 'refused') {
      await writeError(this.args.bridgeCompat, ids, 'PROVIDER_AUTH', failure.message);
      return 3;
    }
    await writeError(this.args.bridgeCompat, ids, 'INTERNAL', failure?.message ?? 'the hub ended the reply without a result');
    return 4;
  }
}

/** The line that ends a request: any flat reply; a protocol `final` / `error` / non-`ACCEPTED` ack. */
function isLast(line: BridgeReply | ProtocolLine): boolean {
  if (!('type' in line)) return true;
  return line.type === 'final' || line.type === 'error' || (line.type === 'ack' && line.status !== 'ACCEPTED');
}

function errorCodeOf(line: BridgeReply | ProtocolLine): string | null {
  if (!('type' in line)) return line.error_code;
  return line.type === 'error' ? line.error.code : null;
}
