/** Responses of the dashboard: every one carries the same defensive headers. */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';

/** Only our own files; no inline script; never framed; the key URL never leaks as a referrer. */
export const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
} as const;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res
    .writeHead(status, {
      ...SECURITY_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    })
    .end(JSON.stringify(body));
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, {
      ...SECURITY_HEADERS,
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      ...headers,
    })
    .end(text + '\n');
}

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  html: 'text/html; charset=utf-8',
  svg: 'image/svg+xml',
};
const assets = new Map<string, Buffer>();

/** The page's built files (dist/dashboard/), read once. */
export function sendAsset(res: ServerResponse, name: string): void {
  let body = assets.get(name);
  if (!body) {
    try {
      body = readFileSync(new URL(`../../dashboard/${name}`, import.meta.url));
    } catch {
      return sendText(res, 404, `Not found: ${name} is not built (run npm run build)`);
    }
    assets.set(name, body);
  }
  const type = TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
  res
    .writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': type,
      'content-length': body.length,
      'cache-control': 'no-cache',
    })
    .end(body);
}
