/**
 * JSON-RPC 2.0 messages the bridge writes itself (the MCP SDK writes the rest): one builder per
 * kind of message, and the error codes by name. A line built here is one valid JSON-RPC message,
 * the only thing the proxy may put on its stdout.
 */

/** The error codes the bridge answers with: the spec's own, and the server range's. */
export const RpcCode = {
  /** the line is not JSON */
  ParseError: -32700,
  /** JSON, but not one valid request (too long, wrong shape) */
  InvalidRequest: -32600,
  /** a fault of ours while handling it */
  InternalError: -32603,
  /** the request cannot be completed (the daemon is gone, a body over the limit): the text says why */
  ServerError: -32000,
  /** a 2025-era HTTP session id this daemon does not know: initialize again */
  SessionNotFound: -32001,
} as const;
export type RpcCode = (typeof RpcCode)[keyof typeof RpcCode];

export type RpcId = string | number | null;

/** A result for request `id`. */
export function rpcResult(id: RpcId, result: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result });
}

/** An error answer for request `id` (null when the request's id could not be read). */
export function rpcError(id: RpcId, code: RpcCode, message: string): string {
  return JSON.stringify(rpcErrorObject(id, code, message));
}

/** The same, as an object (for a transport that serialises it itself). */
export function rpcErrorObject(id: RpcId, code: RpcCode, message: string) {
  return { jsonrpc: '2.0' as const, id, error: { code, message } };
}

/** A notification: a method and its params, no id, no answer. */
export function rpcNotification(method: string, params?: Record<string, unknown>): string {
  return JSON.stringify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
}

/** A request the bridge sends itself. */
export function rpcRequest(id: string | number, method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}
