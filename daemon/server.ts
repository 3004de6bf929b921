/**
 * The daemon's listener (SPEC §6.2, §6.5): HTTP server on 127.0.0.1 whose only useful surface is
 * the WebSocket upgrade, guarded by token, Origin and Host checks. Each connection says `hello`,
 * gets `welcome`, and becomes one engine session over a WsTransport.
 *
 * Two authenticated plain-HTTP routes exist for the CLI: `GET /status` and `POST /stop`.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { clientNonce, daemonProof, PROOF_HEADER, sameHex } from '../shared/auth.js';
import { CLOSE_BAD_HELLO, encode, MAX_FRAME_BYTES, type HelloFrame, type RpcFrame } from '../shared/frames.js';
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
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_FRAME_BYTES });
  private readonly sockets = new Set<WebSocket>();
  /** client nonces already used: each proves the token once */
  private readonly nonces = new Set<string>();
  port = 0;

  constructor(private readonly opts: DaemonServerOptions) {
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

  /**
   * Close every proxy connection with `code` and stop accepting new ones. A proxy that answers
   * the close has read everything before it; one that does not is cut after 500 ms, or after 5 s
   * while frames (acks, answers) are still queued for it: a paused proxy gets time to read them.
   */
  async closeAll(code: number, reason: string): Promise<void> {
    this.http.close();
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
   * Why a request may not talk to us, or undefined when it may. A client proving the token
   * with a nonce (shared/auth.ts) gets `nonce` back, to answer with our own proof.
   */
  private refusal(req: IncomingMessage): { status: number; text: string; nonce?: undefined } | { status?: undefined; nonce?: string } {
    const host = req.headers.host;
    if (host !== `127.0.0.1:${this.port}` && host !== `localhost:${this.port}`) {
      return { status: 403, text: 'Forbidden: unexpected Host header' };
    }
    // Browsers always send Origin on a WebSocket upgrade; our proxy never does.
    if (req.headers.origin !== undefined) return { status: 403, text: 'Forbidden: browser origins are refused' };
    const header = req.headers.authorization;
    const nonce = clientNonce(this.opts.token, header);
    if (nonce !== undefined) {
      if (this.nonces.has(nonce)) return { status: 401, text: 'Unauthorized: nonce already used' };
      this.nonces.add(nonce);
      if (this.nonces.size > 4096) this.nonces.delete(this.nonces.values().next().value as string);
      return { nonce };
    }
    // A bare token (scripts, older clients): accepted, but such a client cannot tell us from an impostor.
    const bearer = /^Bearer (\S+)$/.exec(header ?? '');
    if (bearer && sameHex(bearer[1], this.opts.token)) return {};
    return { status: 401, text: 'Unauthorized' };
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const auth = this.refusal(req);
    if (auth.status !== undefined) return void res.writeHead(auth.status, { 'content-type': 'text/plain' }).end(auth.text + '\n');
    if (auth.nonce) res.setHeader(PROOF_HEADER, daemonProof(this.opts.token, auth.nonce));
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
    const auth = this.refusal(req);
    if (auth.status !== undefined) {
      this.opts.log(`refused an upgrade: ${auth.status} ${auth.text}`);
      socket.end(`HTTP/1.1 ${auth.status} ${auth.text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, auth.nonce));
  }

  private onConnection(ws: WebSocket, nonce: string | undefined): void {
    this.sockets.add(ws);
    ws.on('close', () => this.sockets.delete(ws));
    ws.on('error', (e) => this.opts.log(`connection error: ${e.message}`));
    // First, before the proxy says anything: who we are, and that we know the token.
    ws.send(encode({ t: 'welcome', version: VERSION, pid: process.pid, ...(nonce ? { proof: daemonProof(this.opts.token, nonce) } : {}) }));
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
        session = createEngineSession(this.opts.state, config, sessionId, { cwd: config.cwd, pid: Number(hello.pid) || undefined, configError });
        transport = new WsTransport(ws, (msg) => session!.replayVerdict(msg), sessionId);
        const s = session;
        ws.on('close', () => {
          s.close().catch((e) => this.opts.log(`session ${sessionId} close failed: ${String(e)}`));
        });
        s.server.connect(transport).catch((e) => this.opts.log(`session ${sessionId} connect failed: ${String(e)}`));
        this.opts.log(`session ${sessionId} from proxy pid ${hello.pid} (v${hello.version}) cwd ${hello.cwd}${configError ? `; config error: ${configError}` : ''}`);
        if (configError) ws.send(encode({ t: 'notice', configError }));
        return;
      }
      if (frame.t === 'rpc') transport.receive(frame as RpcFrame);
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
