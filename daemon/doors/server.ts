/**
 * The daemon's listener: an HTTP server on 127.0.0.1 with the bounds of every door
 * (shared/loopback.ts). Every request and WebSocket upgrade is checked first (daemon/doors/access.ts:
 * Host, Origin, token); then a request goes to the plain-HTTP
 * routes (daemon/doors/routes.ts: /status, /stop, /dashboard/key, /mcp, the dashboard's page) and an
 * upgrade becomes one proxy's engine session (daemon/doors/proxy-session.ts).
 */
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { PROOF_HEADER } from '../../shared/auth.js';
import { MAX_FRAME_BYTES } from '../../shared/frames.js';
import { usageError } from '../../shared/errors.js';
import type { DaemonState } from '../state/state.js';
import { guardedServer, maxConnections, refuse, refuseUpgrade, RefusalLog } from '../../shared/loopback.js';
import { DaemonAccess } from './access.js';
import { DaemonRoutes } from './routes.js';
import { acceptProxy } from './proxy-session.js';

export interface DaemonServerOptions {
  state: DaemonState;
  token: string;
  log: (line: string) => void;
  /** a proxy of a newer version asked us to hand over */
  onHandover: () => void;
  /** the daemon is shutting down or handing over: open no more sessions */
  ending: () => boolean;
  /** `game-bridge-mcp stop` */
  onStop: () => void;
  /** extra facts for `status` (pid, version, uptime...) */
  statusFacts: () => Record<string, unknown>;
  /** the working directory HTTP clients' sessions use (they send none): where the daemon was started */
  httpCwd?: string;
}

/** How long a pinned port may stay taken (a handed-over daemon still closing) before we give up. */
const PINNED_PORT_WAIT_MS = 3000;

export class DaemonServer {
  readonly http: HttpServer;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_FRAME_BYTES });
  private readonly sockets = new Set<WebSocket>();
  port = 0;
  private readonly refusals: RefusalLog;
  private readonly access: DaemonAccess;
  private readonly routes: DaemonRoutes;

  constructor(private readonly opts: DaemonServerOptions) {
    this.http = guardedServer({ cap: maxConnections() }, (req, res) => this.onRequest(req, res));
    this.http.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket, head));
    this.refusals = new RefusalLog(opts.log);
    this.access = new DaemonAccess(opts.token, () => this.port);
    this.routes = new DaemonRoutes({
      ...opts,
      port: () => this.port,
      connectionCount: () => this.sockets.size,
    });
  }

  /** Bind 127.0.0.1:`port` (0: any free port). A pinned port still held is retried briefly, then refused clearly. */
  async listen(port = 0): Promise<number> {
    const deadline = Date.now() + PINNED_PORT_WAIT_MS;
    for (;;) {
      try {
        await new Promise<void>((resolve, reject) => {
          const failed = (e: Error) => {
            this.http.off('listening', listening);
            reject(e);
          };
          const listening = () => {
            this.http.off('error', failed);
            resolve();
          };
          this.http.once('error', failed).once('listening', listening).listen({ host: '127.0.0.1', port });
        });
        this.port = (this.http.address() as { port: number }).port;
        return this.port;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (port === 0 || (code !== 'EADDRINUSE' && code !== 'EACCES')) throw e;
        if (code === 'EACCES' || Date.now() >= deadline) {
          throw usageError(
            `The daemon port ${port} (--port or GAME_BRIDGE_DAEMON_PORT) is ${code === 'EACCES' ? 'not allowed' : 'taken by another program'}. ` +
              'Free it, or pin another port; without a pinned port the daemon picks a free one.',
          );
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  connectionCount(): number {
    return this.sockets.size;
  }

  /**
   * Close every proxy connection and HTTP session with `code` and stop accepting new ones. A
   * proxy that answers the close has read everything before it; one that does not is cut after
   * 500 ms, or after 5 s while frames (acks, answers) are still queued for it: a paused proxy
   * gets time to read them.
   */
  async closeAll(code: number, reason: string): Promise<void> {
    this.http.close();
    await this.routes.closeAll();
    const waits = [...this.sockets].map(
      (ws) =>
        new Promise<void>((resolve) => {
          ws.once('close', () => resolve());
          ws.close(code, reason);
          const started = Date.now();
          const cut = setInterval(() => {
            if (ws.bufferedAmount > 0 && Date.now() - started < 5000) return;
            clearInterval(cut);
            ws.terminate();
            resolve();
          }, 500);
          cut.unref();
        }),
    );
    await Promise.all(waits);
  }

  /**
   * A plain request: the dashboard's page (its Host and browser checks in DaemonAccess, its key
   * and secret in its own module), or a checked route.
   */
  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    if (DaemonRoutes.isPage(req)) {
      const refused = this.access.pageRefusal(req);
      if (refused) return refuse(res, refused, 'text', DaemonRoutes.pageHeaders);
      return this.routes.page(req, res);
    }
    const refused = this.access.refusal(req, false);
    if (refused) return refuse(res, refused);
    const proof = this.access.proofFor(req);
    if (proof) res.setHeader(PROOF_HEADER, proof);
    this.routes.handle(req, res);
  }

  /** A WebSocket upgrade: a checked proxy becomes one engine session. */
  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refused = this.access.refusal(req, true);
    if (refused) {
      this.refusals.note(`refused an upgrade: ${refused.status} ${refused.error}`);
      return refuseUpgrade(socket, refused);
    }
    const proof = this.access.proofFor(req);
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.sockets.add(ws);
      ws.on('close', () => this.sockets.delete(ws));
      acceptProxy(ws, proof, this.opts);
    });
  }
}
