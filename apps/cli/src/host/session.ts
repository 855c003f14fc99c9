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
import { postRequest, type PostFailure } from './hub-client';
import { writeLine, type InputLine } from './lines';
import { RequestOrder } from './request-order';

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

/** Why the host cannot serve at all (exit 3): bad configuration, hub unreachable, key refused. */
export interface HostUnavailable {
  code: 'INTERNAL' | 'PROVIDER_DOWN' | 'PROVIDER_AUTH';
  message: string;
}

const UNKNOWN_IDS = { request_id: 'unknown', session_id: null };

/** One `hub host` process: decodes lines and hands them to `POST /v1/zene`. */
export class HostSession {
  /** Runs in flight: request id → session id, so a `cancel` without a session still finds it. */
  private readonly running = new Map<string, string>();
  private readonly order = new RequestOrder();

  /** `hub` is null when the host cannot serve (see `unavailable`). */
  constructor(
    private readonly args: HostArgs,
    private readonly hub: { url: string; apiKey: string } | null,
  ) {}

  /**
   * The host cannot serve, but the request is read first (within the input limits) so the
   * exit-3 reply names its own `request_id` and `session_id`, as the response schema requires.
   * A line that is not a valid request is still bad input (exit 2).
   */
  async unavailable(lines: AsyncGenerator<InputLine>, why: HostUnavailable): Promise<ExitCode> {
    const first = await lines.next();
    let ids: { request_id: string; session_id: string | null } = UNKNOWN_IDS;
    if (!first.done) {
      if ('invalid' in first.value) return this.invalid(UNKNOWN_IDS, first.value.invalid);
      const decoded = decode(first.value.text, { maxInputBytes: this.args.maxInputBytes });
      if (!decoded.ok) return this.invalid(decoded.error, decoded.error.message);
      ids = { request_id: decoded.request.request_id, session_id: decoded.request.session_id ?? null };
    }
    await writeError(this.args.bridgeCompat, ids, why.code, why.message);
    return 3;
  }

  async single(lines: AsyncGenerator<InputLine>): Promise<ExitCode> {
    const first = await lines.next();
    if (first.done) {
      await writeError(this.args.bridgeCompat, UNKNOWN_IDS, 'INVALID_REQUEST', 'no request on stdin');
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
    if ('invalid' in item) return this.invalid(UNKNOWN_IDS, item.invalid);
    const decoded = decode(item.text, { maxInputBytes: this.args.maxInputBytes });
    if (!decoded.ok) return this.invalid(decoded.error, decoded.error.message);
    const request = this.withDefaults(decoded.request);
    if (this.args.bridgeCompat && request.type !== 'run') {
      return this.invalid(request, `bridge-compat mode answers run requests only; send ${request.type} in protocol mode`);
    }
    if (request.type === 'run') this.running.set(request.request_id, request.session_id);
    // Protocol mode: the hub takes a session's requests in the order their lines arrived (a
    // cancel must find the run written before it). Bridge mode keeps runs independent: its only
    // reply is the end, and a second run in a busy session is answered BUSY, as upstream does.
    if (this.args.bridgeCompat) return this.forward(request, () => undefined);
    const admit = await this.order.enter(request.session_id ?? '');
    return this.forward(request, admit);
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

  /** Posts one request; `admit` is called once the hub has answered it at all (or gave up). */
  private async forward(request: ZeneRequest, admit: () => void): Promise<ExitCode> {
    const hub = this.hub;
    if (!hub) throw new Error('a request was forwarded by a host that has no hub');
    const timeoutMs = request.type === 'run' ? Math.ceil(request.timeout_ms ?? DEFAULT_TIMEOUT_MS) : CONTROL_TIMEOUT_MS;
    const ids = { request_id: request.request_id, session_id: request.session_id ?? null };
    let ended = false;
    let exit: ExitCode = 0;
    const mode = this.args.bridgeCompat ? 'bridge' : 'protocol';
    const target = request.type === 'cancel' ? (request.target_request_id ?? request.cancel_request_id ?? '') : null;
    const cancelAnswered = target === null ? null : this.order.cancelling(target);
    const post = { hubUrl: hub.url, apiKey: hub.apiKey, body: request, deadlineMs: timeoutMs + this.args.deadlineMarginMs, mode } as const;
    const failure = await postRequest(post, async (line) => {
      admit();
      // The fixture's order: a cancel's CANCEL_ACCEPTED comes before the CANCELED final of its run.
      if ('type' in line && line.type === 'final' && line.status === 'CANCELED') await this.order.cancelAnswered(request.request_id);
      await writeLine(line);
      ended ||= isLast(line);
      if (errorCodeOf(line) === 'INVALID_REQUEST') exit = 2;
    }).finally(() => {
      admit();
      this.running.delete(request.request_id);
    });
    try {
      return await this.conclude(ids, ended, exit, failure, timeoutMs);
    } finally {
      cancelAnswered?.();
    }
  }

  /** The request's exit code; when the hub did not end the reply, the host writes the end itself. */
  private async conclude(
    ids: { request_id: string; session_id: string | null },
    ended: boolean,
    exit: ExitCode,
    failure: PostFailure | null,
    timeoutMs: number,
  ): Promise<ExitCode> {
    if (!failure && ended) return exit;
    if (failure?.kind === 'deadline') {
      // The hub cancels the turn at timeout_ms; this is the host's own hard limit behind it.
      const started = Date.now() - timeoutMs - this.args.deadlineMarginMs;
      const reply = { request_id: ids.request_id, session_id: ids.session_id ?? '' };
      await writeLine(
        this.args.bridgeCompat
          ? bridgeReply(reply, { kind: 'timeout', usage: ZERO_USAGE })
          : finalLine(reply, { kind: 'timeout', usage: ZERO_USAGE }, { tsMs: Date.now(), latencyMs: Date.now() - started }),
      );
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
