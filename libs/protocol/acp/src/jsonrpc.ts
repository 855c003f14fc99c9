import { checkInput, parseJsonInput } from '@hub/protocol-input';

// JSON-RPC 2.0 framing for ACP: classify one incoming text frame, and build the replies. ACP
// sends no batches; every error is answered on the connection and never closes it.

/** The JSON-RPC error codes ACP uses. */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** ACP: the agent needs `authenticate` first. */
  AUTH_REQUIRED: -32000,
  /** ACP: the resource (a session) does not exist. */
  RESOURCE_NOT_FOUND: -32002,
} as const;

export type JsonRpcId = string | number | null;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** What one incoming frame turned out to be. */
export type Incoming =
  | { kind: 'request'; id: string | number; method: string; params: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'response'; id: string | number; result?: unknown; error?: RpcError }
  | { kind: 'invalid'; id: JsonRpcId; error: RpcError };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string | number => typeof v === 'string' || typeof v === 'number';

/** Parses one text frame (or one stdio line) into a request, notification or response. */
export function parseFrame(raw: string): Incoming {
  const parsed = parseJsonInput(raw);
  if (!parsed.ok && parsed.kind === 'syntax') return { kind: 'invalid', id: null, error: { code: RPC.PARSE_ERROR, message: 'Parse error: not valid JSON' } };
  if (!parsed.ok) {
    // JSON, but over the hub's input limits (depth, string size, NUL, unpaired surrogates): the
    // request's id is echoed when it alone is acceptable, so the client can match the refusal.
    const top = JSON.parse(raw) as unknown;
    const id = isObject(top) && isId(top['id']) && checkInput(top['id']) === null ? top['id'] : null;
    return { kind: 'invalid', id, error: { code: RPC.INVALID_REQUEST, message: `Invalid Request: ${parsed.message}`, data: { path: parsed.path } } };
  }
  const msg = parsed.value;
  if (!isObject(msg) || msg['jsonrpc'] !== '2.0') {
    return {
      kind: 'invalid',
      id: isObject(msg) && isId(msg['id']) ? msg['id'] : null,
      error: { code: RPC.INVALID_REQUEST, message: 'Invalid Request: expected one JSON-RPC 2.0 object' },
    };
  }
  const id = msg['id'];
  if (typeof msg['method'] === 'string') {
    if (id === undefined) return { kind: 'notification', method: msg['method'], params: msg['params'] };
    if (!isId(id)) return { kind: 'invalid', id: null, error: { code: RPC.INVALID_REQUEST, message: 'Invalid Request: id must be a string or a number' } };
    return { kind: 'request', id, method: msg['method'], params: msg['params'] };
  }
  if (isId(id) && ('result' in msg || isObject(msg['error']))) {
    return { kind: 'response', id, result: msg['result'], error: isObject(msg['error']) ? (msg['error'] as unknown as RpcError) : undefined };
  }
  return { kind: 'invalid', id: isId(id) ? id : null, error: { code: RPC.INVALID_REQUEST, message: 'Invalid Request: no method, result or error' } };
}

export const rpcResult = (id: JsonRpcId, result: unknown) => ({ jsonrpc: '2.0' as const, id, result });
export const rpcError = (id: JsonRpcId, error: RpcError) => ({ jsonrpc: '2.0' as const, id, error });
export const rpcNotification = (method: string, params: unknown) => ({ jsonrpc: '2.0' as const, method, params });
export const rpcRequest = (id: string | number, method: string, params: unknown) => ({ jsonrpc: '2.0' as const, id, method, params });

/** An error a handler throws to answer with a specific JSON-RPC error. */
export class AcpRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
  toJSON(): RpcError {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}
