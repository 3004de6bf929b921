/**
 * The daemon's listener: HTTP server on 127.0.0.1 whose only useful surface is
 * the WebSocket upgrade, guarded by token, Origin and Host checks. Each connection says `hello`,
 * gets `welcome`, and becomes one engine session over a WsTransport.
 *
 * Two authenticated plain-HTTP routes exist for the CLI: `GET /status` and `POST /stop`.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { timingSafeEqual } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { CLOSE_BAD_HELLO, encode, type HelloFrame, type RpcFrame } from '../shared/frames.js';
import { parseSessionArgs, sessionConfigFrom, type SessionConfig } from '../shared/config.js';
import { VERSION } from '../shared/version.js';
import { isBridgeError } from '../shared/errors.js';
import { WsTransport } from './transport.js';
import type { DaemonState } from './state.js';
import { createEngineSession, type EngineSession } from './sessions/session.js';

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
}

const HELLO_TIMEOUT_MS = 5000;

export class DaemonServer {
  readonly http: HttpServer;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
  private readonly sockets = new Set<WebSocket>();
  private readonly tokenBuf: Buffer;
  port = 0;

  constructor(private readonly opts: DaemonServerOptions) {
    this.tokenBuf = Buffer.from(opts.token, 'utf8');
    this.http = createServer((req, res) => this.onRequest(req, res));
    this.http.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket, head));
  }

  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen({ host: '127.0.0.1', port: 0 }, () => {
        this.port = (this.http.address() as { port: number }).port;
        resolve(this.port);
      });
    });
  }

  connectionCount(): number {
    return this.sockets.size;
  }

  /** Close every proxy connection with `code` and stop accepting new ones. */
  async closeAll(code: number, reason: string): Promise<void> {
    this.http.close();
    const waits = [...this.sockets].map(
      (ws) =>
        new Promise<void>((resolve) => {
          ws.once('close', () => resolve());
          ws.close(code, reason);
          setTimeout(() => {
            ws.terminate();
            resolve();
          }, 500).unref();
        }),
    );
    await Promise.all(waits);
  }

  /** Why a request may not talk to us, or undefined when it may. */
  private refusal(req: IncomingMessage): { status: number; text: string } | undefined {
    const host = req.headers.host;
    if (host !== `127.0.0.1:${this.port}` && host !== `localhost:${this.port}`) {
      return { status: 403, text: 'Forbidden: unexpected Host header' };
    }
    // Browsers always send Origin on a WebSocket upgrade; our proxy never does.
    if (req.headers.origin !== undefined) return { status: 403, text: 'Forbidden: browser origins are refused' };
    if (!this.tokenOk(req.headers.authorization)) return { status: 401, text: 'Unauthorized' };
    return undefined;
  }

  private tokenOk(header: string | undefined): boolean {
    const m = /^Bearer (\S+)$/.exec(header ?? '');
    if (!m) return false;
    const given = Buffer.from(m[1], 'utf8');
    // timingSafeEqual needs equal lengths; compare against ourselves to keep the time flat.
    const same = given.length === this.tokenBuf.length;
    return timingSafeEqual(same ? given : this.tokenBuf, this.tokenBuf) && same;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const refused = this.refusal(req);
    if (refused) return void res.writeHead(refused.status, { 'content-type': 'text/plain' }).end(refused.text + '\n');
    if (req.method === 'GET' && req.url === '/status') {
      const body = { ...this.opts.statusFacts(), connections: this.sockets.size, ...safeStatus(this.opts.state) };
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    }
    if (req.method === 'POST' && req.url === '/stop') {
      res.writeHead(202, { 'content-type': 'application/json' }).end('{"stopping":true}');
      this.opts.onStop();
      return;
    }
    res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' }).end('Upgrade Required\n');
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refused = this.refusal(req);
    if (refused) {
      this.opts.log(`refused an upgrade: ${refused.status} ${refused.text}`);
      socket.end(`HTTP/1.1 ${refused.status} ${refused.text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws));
  }

  private onConnection(ws: WebSocket): void {
    this.sockets.add(ws);
    ws.on('close', () => this.sockets.delete(ws));
    ws.on('error', (e) => this.opts.log(`connection error: ${e.message}`));
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
      if (!transport) {
        clearTimeout(helloTimer);
        if (frame?.t !== 'hello') return void ws.close(CLOSE_BAD_HELLO, 'first frame must be hello');
        const hello = frame as HelloFrame;
        const { config, configError } = sessionConfig(hello);
        const sessionId = String(hello.sessionId || 'anonymous');
        session = createEngineSession(this.opts.state, config, sessionId, { cwd: config.cwd, pid: Number(hello.pid) || undefined, configError });
        transport = new WsTransport(ws, (msg) => session!.replayVerdict(msg), sessionId);
        const s = session;
        ws.on('close', () => {
          s.close().catch((e) => this.opts.log(`session ${sessionId} close failed: ${String(e)}`));
        });
        s.server.connect(transport).catch((e) => this.opts.log(`session ${sessionId} connect failed: ${String(e)}`));
        this.opts.log(`session ${sessionId} from proxy pid ${hello.pid} (v${hello.version}) cwd ${hello.cwd}${configError ? `; config error: ${configError}` : ''}`);
        ws.send(encode({ t: 'welcome', version: VERSION, pid: process.pid, ...(configError ? { configError } : {}) }));
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

/** The client's flags, or (on a bad flag) the defaults plus the error text for the proxy to print. */
function sessionConfig(hello: HelloFrame): { config: SessionConfig; configError?: string } {
  const env = hello.env && typeof hello.env === 'object' ? hello.env : {};
  const cwd = typeof hello.cwd === 'string' ? hello.cwd : process.cwd();
  try {
    return { config: parseSessionArgs(Array.isArray(hello.argv) ? hello.argv.map(String) : [], env, cwd) };
  } catch (e) {
    const configError = isBridgeError(e) ? e.text : String(e);
    let config: SessionConfig;
    try {
      config = parseSessionArgs([], env, cwd);
    } catch {
      config = { ...sessionConfigFrom({}, {}, cwd), env: { ...env } };
    }
    return { config, configError };
  }
}

function safeStatus(state: DaemonState): Record<string, unknown> {
  try {
    return state.status() as Record<string, unknown>;
  } catch (e) {
    return { statusError: String(e) };
  }
}
