/** Reading one JSON request body for `/mcp`, bounded, with the JSON-RPC error a client can read. */
import type { IncomingMessage } from 'node:http';
import { rpcErrorObject, RpcCode } from '../../shared/jsonrpc.js';

/** Larger than any tool call we expect; the ws link allows more, HTTP clients rarely need it. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export type BodyRead = { ok: true; body: unknown } | { ok: false; status: number; answer: unknown };

/** The parsed body, or the status and JSON-RPC error to answer with. */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<BodyRead> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit)
      return {
        ok: false,
        status: 413,
        answer: rpcErrorObject(null, RpcCode.ServerError, `Request body over ${limit} bytes`),
      };
    chunks.push(chunk);
  }
  try {
    return { ok: true, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return {
      ok: false,
      status: 400,
      answer: rpcErrorObject(null, RpcCode.ParseError, 'Parse error: the request body is not valid JSON'),
    };
  }
}
