/**
 * Who may join a relayed port as its page: the key a page joins with (another tab impersonating
 * the game), compared in constant time, and the origin it joined from. The Host, Origin and
 * Sec-Fetch-Site checks of every request are the loopback guard's (shared/loopback.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

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
