/**
 * A `fetch` for the SDK's HTTP client transport over node:http with a keep-alive agent. The
 * HTTP row measures what the daemon's /mcp adds; Node's built-in fetch (undici) costs the client
 * more CPU per call on its own than the whole stdio client, so the bench reports both clients and
 * holds the target against this one (docs/PERFORMANCE.md, item 9).
 */
import http from 'node:http';
import { Readable } from 'node:stream';

const agent = new http.Agent({ keepAlive: true });

/** The Response as soon as its headers arrive, so an SSE stream stays a stream. */
export function nodeFetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((v, k) => (headers[k] = v));
  return new Promise((resolve, reject) => {
    const req = http.request(String(url), { method: init.method ?? 'GET', headers, agent }, (res) => {
      const out = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out.set(k, v);
      const empty = res.statusCode === 202 || res.statusCode === 204;
      if (empty) res.resume();
      const body = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
      resolve(new Response(body, { status: res.statusCode, headers: out }));
    });
    req.on('error', reject);
    init.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')), { once: true });
    req.end(typeof init.body === 'string' ? init.body : undefined);
  });
}

/** Close the kept-alive sockets (end of a bench). */
export const closeNodeFetch = () => agent.destroy();
