import type { JsonRpcId } from './schema';

/** A JSON-RPC success response: the whole body of a unary answer, or one SSE event's data. */
export function rpcResult(id: JsonRpcId, result: unknown): { jsonrpc: '2.0'; id: JsonRpcId; result: unknown } {
  return { jsonrpc: '2.0', id, result };
}
