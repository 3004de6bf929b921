/**
 * Who may see the dashboard. `game-bridge-mcp dashboard` asks the daemon (with its bearer token)
 * for a one-time key; the page URL carries it once, and the daemon trades it for an HttpOnly,
 * SameSite=Strict cookie and redirects to the clean URL. Every other request needs that cookie,
 * a Host of 127.0.0.1/localhost on our port (checked by the server) and, when the browser sends
 * one, our own Origin.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A printed key that nobody opened is worthless after this long. */
export const KEY_TTL_MS = 5 * 60 * 1000;
/** Browsers (cookies) kept at once; the oldest is forgotten first. */
const MAX_COOKIES = 32;
/** A login lasts this long (a working day), then `game-bridge-mcp dashboard` is asked again. */
export const COOKIE_TTL_MS = 12 * 60 * 60 * 1000;

export class DashboardAccess {
  private keys = new Map<string, number>();
  private cookies: Array<{ value: string; until: number }> = [];

  constructor(private readonly port: () => number) {}

  /** Each daemon's cookie has its own name: cookies are per host, not per port. */
  get cookieName(): string {
    return `gb_dash_${this.port()}`;
  }

  /** A fresh one-time key, valid for KEY_TTL_MS. */
  mintKey(now = Date.now()): string {
    for (const [k, until] of this.keys) if (until < now) this.keys.delete(k);
    const key = randomBytes(24).toString('base64url');
    this.keys.set(key, now + KEY_TTL_MS);
    return key;
  }

  /** Spend a key: the cookie value it buys, or undefined when it is unknown, used or expired. */
  redeem(key: string, now = Date.now()): string | undefined {
    const until = this.keys.get(key);
    if (until === undefined) return undefined;
    this.keys.delete(key);
    if (until < now) return undefined;
    const cookie = randomBytes(32).toString('base64url');
    this.cookies.push({ value: cookie, until: now + COOKIE_TTL_MS });
    if (this.cookies.length > MAX_COOKIES) this.cookies.shift();
    return cookie;
  }

  setCookieHeader(value: string): string {
    return `${this.cookieName}=${value}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${COOKIE_TTL_MS / 1000}`;
  }

  /** Does the request carry a cookie we issued? */
  hasCookie(req: IncomingMessage, now = Date.now()): boolean {
    const given = readCookie(req.headers.cookie, this.cookieName);
    if (!given) return false;
    this.cookies = this.cookies.filter((c) => c.until > now);
    const g = Buffer.from(given);
    return this.cookies.some((c) => {
      const b = Buffer.from(c.value);
      return b.length === g.length && timingSafeEqual(b, g);
    });
  }

  /** An Origin header, when present, must be this page's own (a browser on another site is refused). */
  originOk(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    const port = this.port();
    return origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
  }
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
