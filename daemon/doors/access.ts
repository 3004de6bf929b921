/**
 * Who may talk to the daemon's port: the Host must be ours (DNS rebinding), a browser Origin is
 * refused (except the daemon's own page over plain HTTP), and the token must be shown, bare or
 * as a one-time proof over a nonce (shared/auth.ts). The dashboard's page is the one exception
 * to the token (it has its own key, checked by its module), and its Host and browser checks are
 * made here too. The server asks before routing anything.
 */
import type { IncomingMessage } from 'node:http';
import { clientNonce, daemonProof, sameHex } from '../../shared/auth.js';
import { browserRefusal, hostRefusal, ownOrigins, type Refusal } from '../../shared/loopback.js';
import { selfCommand } from '../../shared/self-command.js';

/** The checks for one daemon: its token, and the port it listens on (known once bound). */
export class DaemonAccess {
  /** client nonces already used: each proves the token once */
  private readonly nonces = new Set<string>();

  constructor(
    private readonly token: string,
    private readonly port: () => number,
  ) {}

  /** Why a request may not talk to us, or undefined when it may. */
  refusal(req: IncomingMessage, upgrade: boolean): Refusal | undefined {
    const port = this.port();
    // Browsers always send Origin on a WebSocket upgrade; our proxy never does. Over plain HTTP
    // only a page the daemon served itself may call it (the same origin).
    const refused =
      hostRefusal(req, port) ??
      (upgrade && req.headers.origin !== undefined
        ? { status: 403, error: 'Forbidden: browser origins are refused' }
        : browserRefusal(req, ownOrigins(port)));
    if (refused) return refused;
    if (!this.tokenOk(req.headers.authorization))
      return {
        status: 401,
        error: `Unauthorized: send Authorization: Bearer <token>; \`${selfCommand()} token\` prints it`,
        headers: { 'www-authenticate': 'Bearer realm="game-bridge"' },
      };
    return undefined;
  }

  /**
   * Why a request for the dashboard's page may not be served, or undefined when it may. The
   * key's own link may be opened from anywhere (a local file, a terminal): it only loads the
   * page, whose own script then spends the key, and a navigation carries no secret. Everything
   * else of the page comes from the page itself (its own origin).
   */
  pageRefusal(req: IncomingMessage): Refusal | undefined {
    const port = this.port();
    const keyLink =
      req.method === 'GET' && req.headers['sec-fetch-mode'] === 'navigate' && /^\/dashboard\?key=/.test(req.url ?? '');
    return hostRefusal(req, port) ?? (keyLink ? undefined : browserRefusal(req, ownOrigins(port)));
  }

  /**
   * A bare token (`Authorization: Bearer`, for HTTP clients), or a proof of it over a fresh nonce
   * (`Authorization: GameBridge`, shared/auth.ts: the proxy and the CLI, which never send the
   * token itself and expect our proof back). Each nonce is accepted once.
   */
  private tokenOk(header: string | undefined): boolean {
    const nonce = clientNonce(this.token, header);
    if (nonce !== undefined) {
      if (this.nonces.has(nonce)) return false;
      this.nonces.add(nonce);
      if (this.nonces.size > 4096) this.nonces.delete(this.nonces.values().next().value as string);
      return true;
    }
    const m = /^Bearer (\S+)$/.exec(header ?? '');
    return !!m && sameHex(m[1], this.token);
  }

  /** Our proof for a client that proved the token with a nonce (undefined for a bare token). */
  proofFor(req: IncomingMessage): string | undefined {
    const nonce = clientNonce(this.token, req.headers.authorization);
    return nonce ? daemonProof(this.token, nonce) : undefined;
  }
}
