/**
 * Who may talk to a relayed port. A browser game's port is reachable by every page open in
 * every browser on the machine, so the carrier checks what a native game's port never had to:
 * the Host (DNS rebinding), the Origin and Sec-Fetch-Site of contract requests (a web site
 * sending commands), and the key a page joins with (another tab impersonating the game).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface Refusal {
  status: number;
  error: string;
}

/** Host must name this loopback port exactly; a rebinding attacker's name does not. */
export function checkHost(req: IncomingMessage, port: number): Refusal | undefined {
  const host = req.headers.host;
  if (host === `127.0.0.1:${port}` || host === `localhost:${port}`) return undefined;
  return {
    status: 403,
    error: `Forbidden: unexpected Host header '${host ?? ''}' (this port answers 127.0.0.1:${port} only)`,
  };
}

/**
 * A contract request from a browser page must come from the game's own page (or this port's
 * origin); tools and curl send neither Origin nor Sec-Fetch-Site. `cross-site` is refused
 * whatever the Origin, and so is a `same-site` request without the page's Origin: a no-cors GET
 * from another local server's page (another port of 127.0.0.1 is "same-site") carries no
 * Origin at all. `none` (a person typing the URL) is allowed.
 */
export function checkContractOrigin(
  req: IncomingMessage,
  port: number,
  pageOrigin: string | null,
): Refusal | undefined {
  const site = req.headers['sec-fetch-site'];
  const origin = req.headers.origin;
  const own = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
  const trusted = origin !== undefined && (own.includes(origin) || (pageOrigin !== null && origin === pageOrigin));
  if (site === 'cross-site')
    return { status: 403, error: 'Forbidden: cross-site browser requests are refused on a game port' };
  if (origin !== undefined && !trusted) {
    return {
      status: 403,
      error: `Forbidden: requests from origin '${origin}' are refused (only the game's own page may call this port)`,
    };
  }
  if (site === 'same-site' && !trusted)
    return {
      status: 403,
      error: "Forbidden: a browser request from another local site is refused (no Origin of the game's page)",
    };
  return undefined;
}

/** The page's key, compared in constant time. */
export function keyMatches(given: string | null, key: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(key);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The origin a page joined from, or null (no header; "null" for file: pages counts as none). */
export function pageOriginOf(req: IncomingMessage): string | null {
  const o = req.headers.origin;
  return o && o !== 'null' ? o : null;
}
