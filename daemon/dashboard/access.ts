/**
 * Who may see the dashboard. `game-bridge-mcp dashboard` asks the daemon (with its bearer token)
 * for a one-time key; the page URL carries it once, and the page's script trades it (a POST from
 * our own Origin) for a secret it keeps in its own origin's storage. Every data request carries
 * that secret in the X-GameBridge-Dashboard header. No cookie is set: cookies are per host, not
 * per port, so a browser would hand one to every server on 127.0.0.1; a header is added only by
 * the page's own script, which only this origin (host and port) runs. The server also checks the
 * Host (127.0.0.1/localhost on our port) and the Origin.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A printed key that nobody opened is worthless after this long. */
export const KEY_TTL_MS = 5 * 60 * 1000;
/** Logged-in pages (secrets) kept at once; the oldest is forgotten first. */
const MAX_SECRETS = 32;
/** A login lasts this long (a working day), then `game-bridge-mcp dashboard` is asked again. */
export const SECRET_TTL_MS = 12 * 60 * 60 * 1000;
/** The header the page's script sends its secret in (node lower-cases header names). */
export const SECRET_HEADER = 'x-gamebridge-dashboard';

export class DashboardAccess {
  private keys = new Map<string, number>();
  private secrets: Array<{ value: string; until: number }> = [];

  constructor(private readonly port: () => number) {}

  /** A fresh one-time key, valid for KEY_TTL_MS. */
  mintKey(now = Date.now()): string {
    for (const [k, until] of this.keys) if (until < now) this.keys.delete(k);
    const key = randomBytes(24).toString('base64url');
    this.keys.set(key, now + KEY_TTL_MS);
    return key;
  }

  /** Spend a key: the page secret it buys, or undefined when it is unknown, used or expired. */
  redeem(key: string, now = Date.now()): string | undefined {
    const until = this.keys.get(key);
    if (until === undefined) return undefined;
    this.keys.delete(key);
    if (until < now) return undefined;
    const secret = randomBytes(32).toString('base64url');
    this.secrets.push({ value: secret, until: now + SECRET_TTL_MS });
    if (this.secrets.length > MAX_SECRETS) this.secrets.shift();
    return secret;
  }

  /** Does the request carry, in our header, a secret we gave a page? */
  hasSecret(req: IncomingMessage, now = Date.now()): boolean {
    const given = req.headers[SECRET_HEADER];
    if (typeof given !== 'string' || !given) return false;
    this.secrets = this.secrets.filter((c) => c.until > now);
    const g = Buffer.from(given);
    return this.secrets.some((c) => {
      const b = Buffer.from(c.value);
      return b.length === g.length && timingSafeEqual(b, g);
    });
  }

  /** An Origin header, when present, must be this page's own (a browser on another site is refused). */
  originOk(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    return origin === undefined || this.ownOrigin(origin);
  }

  /** Is this one of the page's own origins? */
  ownOrigin(origin: string | undefined): boolean {
    const port = this.port();
    return origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
  }
}
