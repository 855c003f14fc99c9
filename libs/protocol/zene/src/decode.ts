import type { z } from 'zod';
import { CancelRequest, MAX_ID_CHARS, PingRequest, REQUEST_TYPES, RunRequest, SessionCloseRequest, ZENE_PROTOCOL_VERSION, type ZeneRequest } from './schema';
import { parseJsonInput } from '@hub/protocol-input';

/** The input size limit when the host is not told another (`hub host --max-input-bytes`). */
export const DEFAULT_MAX_INPUT_BYTES = 1_048_576;

/**
 * Why a line is not a request, with whatever ids could be read from it so the reply can still
 * name the request (upstream answers an unparseable line with `request_id: "unknown"`).
 */
export interface DecodeError {
  readonly request_id: string;
  readonly session_id: string | null;
  readonly message: string;
}

export type DecodeResult = { ok: true; request: ZeneRequest } | { ok: false; error: DecodeError };

export interface DecodeOptions {
  /** Lines longer than this many UTF-8 bytes are refused before parsing. */
  readonly maxInputBytes: number;
}

/**
 * Decodes one NDJSON line into a request, or the reason it is `INVALID_REQUEST`: over the size
 * limit, blank, not JSON, not an object, another protocol version or type, a required field
 * missing or blank after trim, a field of the wrong type. Never throws.
 */
export function decode(line: string, opts: DecodeOptions): DecodeResult {
  const bytes = utf8ByteLength(line);
  if (bytes > opts.maxInputBytes) {
    return fail(unknownIds, `payload of ${bytes} bytes exceeds the input size limit of ${opts.maxInputBytes} bytes`);
  }
  if (line.trim() === '') return fail(unknownIds, 'empty request line');
  // The hub's one input check (depth, string size, NUL, unpaired surrogates) before zod.
  const parsed = parseJsonInput(line);
  if (!parsed.ok && parsed.kind === 'syntax') return fail(unknownIds, `invalid JSON payload: ${parsed.message.replace(/^not valid JSON: /, '')}`);
  if (!parsed.ok) return fail(unknownIds, `invalid request: ${parsed.message}`);
  return decodeValue(parsed.value);
}

/** Decodes an already parsed JSON value (an HTTP body) exactly as `decode` decodes a line. */
export function decodeValue(json: unknown): DecodeResult {
  if (!isRecord(json)) return fail(unknownIds, 'request must be a JSON object');
  const ids = idsOf(json);
  const version = json['protocol_version'];
  if (version !== undefined && version !== null && version !== ZENE_PROTOCOL_VERSION) {
    return fail(ids, `unsupported protocol_version (expected ${ZENE_PROTOCOL_VERSION})`);
  }
  const type: unknown = json['type'] ?? 'run';
  switch (type) {
    case 'run': {
      const parsed = RunRequest.safeParse(json);
      return parsed.success ? { ok: true, request: { ...parsed.data, type: 'run' } } : invalid(ids, 'run', parsed.error);
    }
    case 'ping':
      return parse(PingRequest, json, ids, 'ping');
    case 'cancel':
      return parse(CancelRequest, json, ids, 'cancel');
    case 'session_close':
      return parse(SessionCloseRequest, json, ids, 'session_close');
    default:
      return fail(ids, `unsupported request type ${JSON.stringify(type)}; expected one of ${REQUEST_TYPES.join(', ')}`);
  }
}

function parse(schema: z.ZodType<ZeneRequest>, json: unknown, ids: Ids, type: string): DecodeResult {
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, request: parsed.data } : invalid(ids, type, parsed.error);
}

function invalid(ids: Ids, type: string, error: z.ZodError): DecodeResult {
  const details = error.issues.slice(0, 3).map((issue) => {
    const field = issue.path.map(String).join('.') || '(request)';
    return issue.code === 'invalid_type' && issue.input === undefined ? `${field} is required` : `${field}: ${issue.message}`;
  });
  return fail(ids, `${type} request: ${details.join('; ')}`);
}

type Ids = Pick<DecodeError, 'request_id' | 'session_id'>;
const unknownIds: Ids = { request_id: 'unknown', session_id: null };

function idsOf(json: Record<string, unknown>): Ids {
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' && v.length <= MAX_ID_CHARS * 4 ? v : null);
  return { request_id: text(json['request_id']) ?? 'unknown', session_id: text(json['session_id']) };
}

function fail(ids: Ids, message: string): DecodeResult {
  return { ok: false, error: { ...ids, message } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** UTF-8 length of a string without Buffer or TextEncoder (pure code, any runtime). */
export function utf8ByteLength(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
