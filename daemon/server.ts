/* eslint-disable max-lines -- over 250 lines once formatted; to be split (docs/DECISIONS.md, "Formatting") */
/**
 * The daemon's listener: HTTP server on 127.0.0.1 whose only useful surface is
 * the WebSocket upgrade, guarded by token, Origin and Host checks. Each connection says `hello`,
 * gets `welcome`, and becomes one engine session over a WsTransport.
 *
 * Authenticated plain-HTTP routes: `GET /status`, `POST /stop` and `POST /dashboard/key` for the
 * CLI, and `/mcp`, MCP over Streamable HTTP (daemon/http/mcp-route.ts, loaded on its first request).
 * The dashboard's page (/dashboard...) is checked for Host here and by its own module for the
 * rest (key, cookie, Origin); that module is loaded on the first request for it.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { clientNonce, daemonProof, PROOF_HEADER, sameHex } from '../shared/auth.js';
import { CLOSE_BAD_HELLO, encode, MAX_FRAME_BYTES, type HelloFrame, type RpcFrame } from '../shared/frames.js';
import { VERSION } from '../shared/version.js';
import { usageError } from '../shared/errors.js';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { WsTransport } from './transport.js';
import type { DaemonState } from './state.js';
import { createEngineSession, type EngineSession } from './sessions/session.js';
import { isDashboardPage, loadDashboard, type Dashboard } from './dashboard-loader.js';
import { httpSessionConfig, sessionConfig } from './sessions/client-config.js';
import type { McpHttpRoute } from './http/mcp-route.js';
import { LISTENER_OPTIONS, maxConnections, RefusalLog } from './http/guard.js';
import { selfCommand } from '../shared/self-command.js';

export interface DaemonServerOptions {
  state: DaemonState;
  token: string;
  log: (line: string) => void;
  /** a proxy of a newer version asked us to hand over */
  onHandover: () => void;
  /** `game-bridge-mcp stop` */
  onStop: () => void;
  /** extra facts for `status` (pid, version, uptime...) */
  statusFacts: () => Record<string, unknown>;
  /** the working directory HTTP clients' sessions use (they send none): where the daemon was started */
  httpCwd?: string;
}

/** How long a pinned port may stay taken (a handed-over daemon still closing) before we give up. */
const PINNED_PORT_WAIT_MS = 3000;

const HELLO_TIMEOUT_MS = 5000;

export class DaemonServer {
  readonly http: HttpServer;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_FRAME_BYTES });
  private readonly sockets = new Set<WebSocket>();
  /** client nonces already used: each proves the token once */
  private readonly nonces = new Set<string>();
  private dashboardModule?: Promise<Dashboard>;
  port = 0;
  private mcpRoute?: Promise<McpHttpRoute>;
  private readonly refusals: RefusalLog;

  constructor(private readonly opts: DaemonServerOptions) {
    this.http = createServer(LISTENER_OPTIONS, (req, res) => this.onRequest(req, res));
    this.http.maxConnections = maxConnections();
    this.http.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket, head));
    this.refusals = new RefusalLog(opts.log);
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
    void this.dashboardModule?.then((d) => d.close()).catch(() => undefined);
    const route = this.mcpRoute;
    if (route) await route.then((r) => r.closeAll()).catch(() => undefined);
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

  private hostOk(req: IncomingMessage): boolean {
    const host = req.headers.host;
    return host === `127.0.0.1:${this.port}` || host === `localhost:${this.port}`;
  }

  /** The dashboard module, loaded (and given what it may see) on first use. */
  private dashboard(): Promise<Dashboard> {
    this.dashboardModule ??= loadDashboard({
      state: this.opts.state,
      port: () => this.port,
      log: this.opts.log,
      facts: this.opts.statusFacts,
    }).catch((e) => {
      this.dashboardModule = undefined;
      throw e;
    });
    return this.dashboardModule;
  }

  private dashboardFailed(res: ServerResponse, e: unknown): void {
    this.opts.log(`dashboard failed: ${(e as Error)?.stack ?? String(e)}`);
    if (!res.headersSent)
      res.writeHead(500, { 'content-type': 'text/plain' }).end('The dashboard could not be loaded; see daemon.log.\n');
  }

  /** Why a request may not talk to us, or undefined when it may. */
  private refusal(req: IncomingMessage, upgrade: boolean): { status: number; text: string } | undefined {
    if (!this.hostOk(req)) {
      return { status: 403, text: 'Forbidden: unexpected Host header' };
    }
    // Browsers always send Origin on a WebSocket upgrade; our proxy never does. Over plain HTTP
    // only a page the daemon served itself may call it (the same origin).
    const origin = req.headers.origin;
    if (
      origin !== undefined &&
      (upgrade || (origin !== `http://127.0.0.1:${this.port}` && origin !== `http://localhost:${this.port}`))
    ) {
      return { status: 403, text: 'Forbidden: browser origins are refused' };
    }
    if (!this.tokenOk(req.headers.authorization))
      return {
        status: 401,
        text: `Unauthorized: send Authorization: Bearer <token>; \`${selfCommand()} token\` prints it`,
      };
    return undefined;
  }

  /**
   * A bare token (`Authorization: Bearer`, for HTTP clients), or a proof of it over a fresh nonce
   * (`Authorization: GameBridge`, shared/auth.ts: the proxy and the CLI, which never send the
   * token itself and expect our proof back). Each nonce is accepted once.
   */
  private tokenOk(header: string | undefined): boolean {
    const nonce = clientNonce(this.opts.token, header);
    if (nonce !== undefined) {
      if (this.nonces.has(nonce)) return false;
      this.nonces.add(nonce);
      if (this.nonces.size > 4096) this.nonces.delete(this.nonces.values().next().value as string);
      return true;
    }
    const m = /^Bearer (\S+)$/.exec(header ?? '');
    return !!m && sameHex(m[1], this.opts.token);
  }

  /** Our proof for a client that proved the token with a nonce (undefined for a bare token). */
  private proofFor(req: IncomingMessage): string | undefined {
    const nonce = clientNonce(this.opts.token, req.headers.authorization);
    return nonce ? daemonProof(this.opts.token, nonce) : undefined;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    if (isDashboardPage(req.url) && !(req.method === 'POST' && req.url === '/dashboard/key')) {
      if (!this.hostOk(req))
        return void res.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden: unexpected Host header\n');
      return void this.dashboard()
        .then((d) => d.handle(req, res))
        .catch((e) => this.dashboardFailed(res, e));
    }
    const refused = this.refusal(req, false);
    if (refused) {
      const headers = {
        'content-type': 'text/plain',
        ...(refused.status === 401 ? { 'www-authenticate': 'Bearer realm="game-bridge"' } : {}),
      };
      return void res.writeHead(refused.status, headers).end(refused.text + '\n');
    }
    const proof = this.proofFor(req);
    if (proof) res.setHeader(PROOF_HEADER, proof);
    if (req.url === '/mcp' || req.url?.startsWith('/mcp?')) return void this.serveMcp(req, res);
    if (req.method === 'GET' && req.url === '/status') {
      const body = { ...this.opts.statusFacts(), connections: this.sockets.size, ...safeStatus(this.opts.state) };
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    }
    if (req.method === 'POST' && req.url === '/stop') {
      res.writeHead(202, { 'content-type': 'application/json' }).end('{"stopping":true}');
      this.opts.onStop();
      return;
    }
    if (req.method === 'POST' && req.url === '/dashboard/key') {
      return void this.dashboard()
        .then((d) =>
          res
            .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
            .end(JSON.stringify(d.mintKey())),
        )
        .catch((e) => this.dashboardFailed(res, e));
    }
    res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' }).end('Upgrade Required\n');
  }

  /** `/mcp`: the route module is loaded on the first request, so a daemon no HTTP client uses never pays for it. */
  private async serveMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      this.mcpRoute ??= import('./http/mcp-route.js').then(
        ({ McpHttpRoute }) =>
          new McpHttpRoute({
            open: (id) =>
              createEngineSession(
                this.opts.state,
                httpSessionConfig(this.opts.httpCwd ?? process.cwd(), process.env),
                id,
              ),
            log: this.opts.log,
          }),
      );
      await (await this.mcpRoute).handle(req, res);
    } catch (e) {
      this.opts.log(`/mcp failed: ${e instanceof Error ? e.stack : String(e)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: `Internal error: ${String(e)}` } }),
      );
    }
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refused = this.refusal(req, true);
    if (refused) {
      this.refusals.note(`refused an upgrade: ${refused.status} ${refused.text}`);
      socket.end(`HTTP/1.1 ${refused.status} ${refused.text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const proof = this.proofFor(req);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, proof));
  }

  private onConnection(ws: WebSocket, proof: string | undefined): void {
    this.sockets.add(ws);
    ws.on('close', () => this.sockets.delete(ws));
    ws.on('error', (e) => this.opts.log(`connection error: ${e.message}`));
    // First, before the proxy says anything: who we are, and that we know the token.
    ws.send(encode({ t: 'welcome', version: VERSION, pid: process.pid, ...(proof ? { proof } : {}) }));
    const helloTimer = setTimeout(() => ws.close(CLOSE_BAD_HELLO, 'no hello'), HELLO_TIMEOUT_MS);
    let transport: WsTransport | undefined;
    let session: EngineSession | undefined;

    ws.on('message', (data) => {
      let frame: { t?: string };
      try {
        frame = JSON.parse(data.toString());
      } catch {
        this.opts.log('a proxy sent a frame that is not JSON; closing it');
        ws.close(CLOSE_BAD_HELLO, 'bad frame');
        return;
      }
      if (frame?.t === 'handover') {
        this.opts.log(`proxy asked for a handover (${transport ? `session ${transport.sessionId}` : 'before hello'})`);
        return this.opts.onHandover();
      }
      if (!transport) {
        clearTimeout(helloTimer);
        if (frame?.t !== 'hello') return void ws.close(CLOSE_BAD_HELLO, 'first frame must be hello');
        const hello = frame as HelloFrame;
        const { config, configError } = sessionConfig(hello);
        const sessionId = String(hello.sessionId || 'anonymous');
        session = createEngineSession(this.opts.state, config, sessionId, {
          cwd: config.cwd,
          pid: Number(hello.pid) || undefined,
          configError,
        });
        transport = new WsTransport(ws, (msg) => session!.replayVerdict(msg), sessionId);
        const s = session;
        ws.on('close', () => {
          s.close().catch((e) => this.opts.log(`session ${sessionId} close failed: ${String(e)}`));
        });
        // The era (2025 initialize, or 2026 per-request _meta) is pinned by the connection's opening.
        serveStdio(() => s.buildServer(), {
          transport,
          onerror: (e) => this.opts.log(`session ${sessionId}: ${e.message}`),
        });
        this.opts.log(
          `session ${sessionId} from proxy pid ${hello.pid} (v${hello.version}) cwd ${hello.cwd}${configError ? `; config error: ${configError}` : ''}`,
        );
        if (configError) ws.send(encode({ t: 'notice', configError }));
        return;
      }
      if (frame.t === 'rpc') transport.receive(frame as RpcFrame);
      else if (frame.t === 'handover') {
        this.opts.log(`proxy asked for a handover (session ${transport.sessionId})`);
        this.opts.onHandover();
      }
    });
  }
}

function safeStatus(state: DaemonState): Record<string, unknown> {
  try {
    return state.status() as Record<string, unknown>;
  } catch (e) {
    return { statusError: String(e) };
  }
}
