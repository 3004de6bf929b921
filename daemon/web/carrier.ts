/**
 * The page carrier: a browser game cannot listen on a port, so per web instance the daemon
 * serves the game contract on 127.0.0.1:<port> and relays each request to the page over the
 * WebSocket the page opened at `/page?key=…` on that same port. To discovery, call_tool and
 * curl the port is a game like any other.
 *
 *   const carrier = await startPageCarrier({ port, key?, log?, relayTimeoutMs? });
 *   carrier.port / carrier.key
 *   carrier.wsUrl                      ws://127.0.0.1:<port>/page?key=<key>
 *   carrier.fragment                   "#gamebridge=<URL-encoded wsUrl>" (+ "&gamebridge-paused=1"): append to the page's URL
 *   carrier.page                       the joined page ({name, version, origin, joinedAt, join}) or null
 *   await carrier.waitForJoin(ms)      resolves with the page once it said hello (rejects on timeout)
 *   carrier.on('join', info)           every join: the first, and each reload (a new process)
 *   carrier.on('leave', {info, reason})
 *   await carrier.answer(target)       {status, body} or {noPage}: a contract request answered as the port
 *                                      would, for the daemon's own calls (no loopback HTTP, no browser to guard
 *                                      against); "no page" is a value there, and a 503 only at the port
 *   await carrier.close()              closes the page's socket, then the port
 *
 * Answers while no page is joined: 503 `{"ok": false, "error": "GameOffline: …"}` on every
 * contract path (the port stays bound, since the page must find it again after a reload);
 * a request in flight when the page goes also gets 503, a page that does not answer within
 * relayTimeoutMs 504. Refusals (the loopback guard's, shared/loopback.ts, plus the join's):
 * wrong Host 403, a foreign Origin or `Sec-Fetch-Site: cross-site` 403, a join with a wrong or
 * missing key 401, a join from another origin than the page opened, or from a process that is
 * not the browser opened, 403, a second page while one is joined 409. A page that sends garbage is closed (code 1008) with a log line saying what it sent.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  CARRIER_CONNECTIONS,
  hostRefusal,
  openLoopbackDoor,
  refuse,
  refuseUpgrade,
  type LoopbackDoor,
  type Refusal,
} from '../../shared/loopback.js';
import { keyMatches, pageOriginOf } from './guards.js';
import { PageLink, RelayError, type PageInfo } from './page-link.js';

export type { PageInfo } from './page-link.js';

export interface PageCarrierOptions {
  /** Port on 127.0.0.1 (0 = OS-assigned). */
  port: number;
  /** The join key; default 128 random bits. Pass the recorded one to take a page back after a daemon restart. */
  key?: string;
  log?: (line: string) => void;
  /** How long a relayed request may wait for the page (default 30 s). */
  relayTimeoutMs?: number;
  /**
   * After a page left, how long a request waits for a page to join again before it is answered
   * 503 (default 10 s: an engine page reloading on a loaded machine takes seconds): a reload then looks like a quick restart, not like a game gone offline.
   */
  rejoinGraceMs?: number;
  /**
   * The origin of the page the bridge opened (http://127.0.0.1:<site port>): a join from any
   * other origin is refused. Unset: any origin with the key (tests, a page opened by hand).
   */
  pageOrigin?: string;
  /**
   * Is the connection from this peer port the browser the bridge opened? (Linux: its socket
   * belongs to Chromium's process group.) A join from anyone else is refused.
   */
  acceptPeer?: (remotePort: number) => boolean;
  /** connections at once (default CARRIER_CONNECTIONS) */
  maxConnections?: number;
  /** The page's seed: /state says it (a kit's snapshot or the stand-in's). */
  seed?: string;
  /** The kit page starts its clock paused at simFrame 0: the fragment says so (`&gamebridge-paused=1`). */
  startPaused?: boolean;
  /** A page without the kit: every contract request is answered by this instead of a joined page (stand-in.ts). */
  standIn?: (target: string) => Promise<CarrierAnswer>;
}

export interface PageCarrier extends EventEmitter {
  readonly port: number;
  readonly key: string;
  readonly wsUrl: string;
  readonly fragment: string;
  readonly page: PageInfo | null;
  waitForJoin(timeoutMs: number): Promise<PageInfo>;
  /** A contract request (GET path and query) answered as the port answers it, "no page" as a value; never rejects. */
  answer(target: string): Promise<CarrierAnswer>;
  close(): Promise<void>;
}

/**
 * What the port answers a contract request: an HTTP status and a JSON body, or no page to ask
 * (none joined, or the page went away with the request: `interrupted`). Only the port's door
 * writes "no page" as HTTP (a 503, `noPageBody`); the daemon's own calls get the value.
 */
export type CarrierAnswer = { status: number; body: unknown } | NoPage;

/** No page behind the port: `noPage` says why; `interrupted` when the page left with the request. */
export interface NoPage {
  noPage: string;
  interrupted?: true;
}

const MAX_TARGET_BYTES = 64 * 1024;
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

export async function startPageCarrier(options: PageCarrierOptions): Promise<PageCarrier> {
  const carrier = new Carrier(options);
  await carrier.listen();
  return carrier;
}

const CLOSING: Refusal = { status: 503, error: 'the carrier is closing' };
const NO_PAGE: NoPage = {
  noPage:
    'no page is joined to this port (the browser tab was closed, is reloading, or never opened); relaunch the game or reopen its page',
};

/**
 * The carrier, one role per method: `listen` opens the port, `onRequest` and `answer` take a
 * contract request, `relay` carries it to the page, `onUpgrade` admits or refuses a page,
 * `adopt` follows an admitted page through its join and its leaving, `close` ends it all.
 * Its state: the link to the page (null while none is connected), how many pages joined so far,
 * when the last one left, and whether it is closed.
 */
class Carrier extends EventEmitter implements PageCarrier {
  readonly key: string;
  private readonly relayTimeoutMs: number;
  private readonly rejoinGraceMs: number;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_REPLY_BYTES });
  private door?: LoopbackDoor;
  private link: PageLink | null = null;
  private joins = 0;
  private leftAt = 0;
  private closed = false;

  constructor(private readonly options: PageCarrierOptions) {
    super();
    this.key = options.key ?? randomBytes(16).toString('hex');
    this.relayTimeoutMs = options.relayTimeoutMs ?? 30_000;
    this.rejoinGraceMs = options.rejoinGraceMs ?? 10_000;
  }

  /** Binds the port; the request and join handlers are in place before anything can connect. */
  async listen(): Promise<void> {
    this.door = await openLoopbackDoor({
      cap: this.options.maxConnections ?? CARRIER_CONNECTIONS,
      maxHeaderSize: MAX_TARGET_BYTES + 16 * 1024,
      port: this.options.port,
      what: 'page carrier',
      as: 'json',
      alsoTrusted: () => this.pageOrigins(),
      onRequest: (req, res) => this.onRequest(req, res),
    });
    this.door.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) =>
      this.onUpgrade(req, socket, head),
    );
  }

  get port(): number {
    return this.door?.port ?? this.options.port;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}/page?key=${this.key}`;
  }

  get fragment(): string {
    return `#gamebridge=${encodeURIComponent(this.wsUrl)}${this.options.startPaused ? '&gamebridge-paused=1' : ''}`;
  }

  get page(): PageInfo | null {
    return this.link?.info ?? null;
  }

  private readonly log = (line: string): void =>
    (this.options.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(
      `page carrier 127.0.0.1:${this.port}: ${line}`,
    );

  // The game's own page may call its port (its origin), and so may a page of this port's origin.
  private pageOrigins(): string[] {
    const page = this.link?.info?.origin ?? this.options.pageOrigin;
    return page ? [page] : [];
  }

  // A contract request that passed the loopback guard: GET only, and not the join's path.
  private onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const target = req.url ?? '/';
    const refusal =
      (req.method !== 'GET' && req.method !== 'HEAD'
        ? { status: 405, error: `method ${req.method} not allowed; the game surface is GET only` }
        : undefined) ??
      (target.split('?')[0] === '/page'
        ? { status: 426, error: '/page is the WebSocket a game page joins with' }
        : undefined);
    if (refusal) return refuse(res, refusal, 'json');
    void this.answer(target).then((a) => ('noPage' in a ? send(res, 503, noPageBody(a)) : send(res, a.status, a.body)));
  }

  // A contract request, from the port or from the daemon itself: bounded, then relayed.
  async answer(target: string): Promise<CarrierAnswer> {
    if (Buffer.byteLength(target) > MAX_TARGET_BYTES)
      return { status: 414, body: { accepted: false, error: `request too long (over ${MAX_TARGET_BYTES} bytes)` } };
    const a = await (this.options.standIn ? this.options.standIn(target) : this.relay(target));
    const { seed } = this.options;
    if (
      seed !== undefined &&
      'status' in a &&
      a.status === 200 &&
      target.split('?')[0] === '/state' &&
      isObject(a.body)
    )
      return { ...a, body: { ...a.body, seed } };
    return a;
  }

  // Relays to the joined page; right after a page left, first waits a moment for one to join again.
  // A read the page took with it is asked again of the next page; a command never is (it may have been applied).
  private async relay(target: string, again = true): Promise<CarrierAnswer> {
    const grace = this.leftAt + this.rejoinGraceMs - Date.now();
    if (!this.link?.info && grace > 0 && !this.closed) await this.waitForJoin(grace).catch(() => undefined);
    const link = this.link;
    if (!link?.info) return NO_PAGE;
    try {
      return await link.relay(target, this.relayTimeoutMs);
    } catch (e) {
      const kind = (e as RelayError).kind;
      if (kind === 'gone' && again && target.split('?')[0] !== '/command') return this.relay(target, false);
      // interrupted: the page had the request and may have acted on it (a command may or may not be applied).
      if (kind === 'timeout')
        return { status: 504, body: { ok: false, error: `GameOffline: ${(e as Error).message}`, interrupted: true } };
      return { noPage: (e as Error).message, interrupted: true };
    }
  }

  // A page joining: admitted, or refused with a log line saying why.
  private onUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const origin = pageOriginOf(req);
    const refusal = this.joinRefusal(req, origin) ?? (this.closed ? CLOSING : undefined);
    if (refusal) {
      this.log(`refused a page joining from ${req.headers.origin ?? 'no origin'}: ${refusal.error}`);
      return refuseUpgrade(socket, refusal);
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.adopt(ws, origin));
  }

  // Host, key, the page and the browser the bridge opened, one page at a time.
  private joinRefusal(req: http.IncomingMessage, origin: string | null): Refusal | undefined {
    const { options, link } = this;
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    return (
      hostRefusal(req, this.port) ??
      (url.pathname !== '/page' ? { status: 404, error: 'the only WebSocket here is /page' } : undefined) ??
      (!keyMatches(url.searchParams.get('key'), this.key)
        ? { status: 401, error: 'wrong or missing key' }
        : undefined) ??
      (options.pageOrigin !== undefined && origin !== options.pageOrigin
        ? { status: 403, error: `a page of origin ${origin ?? '(none)'} is not the page the bridge opened` }
        : undefined) ??
      (options.acceptPeer && !options.acceptPeer(req.socket.remotePort ?? 0)
        ? { status: 403, error: 'the connection does not come from the browser the bridge opened' }
        : undefined) ??
      (link
        ? {
            status: 409,
            error: `another page is already joined (${link.info?.name ?? 'saying hello'}); close it first`,
          }
        : undefined)
    );
  }

  // An admitted page: it is the page once it said hello, and no longer once it is gone.
  private adopt(ws: WebSocket, origin: string | null): void {
    const current = new PageLink(ws, { origin, join: this.joins + 1, log: this.log });
    this.link = current;
    current.on('hello', (info: PageInfo) => {
      this.joins = info.join;
      this.log(`page joined: ${info.name} ${info.version} from ${origin ?? 'no origin'} (join ${info.join})`);
      this.emit('join', info);
    });
    current.on('gone', (reason: string) => {
      if (this.link === current) this.link = null;
      if (current.info) {
        this.leftAt = Date.now();
        this.log(`page left: ${reason}`);
      }
      this.emit('leave', { info: current.info, reason });
    });
  }

  waitForJoin(timeoutMs: number): Promise<PageInfo> {
    if (this.page) return Promise.resolve(this.page);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('join', onJoin);
        reject(new Error(`no page joined 127.0.0.1:${this.port} within ${timeoutMs} ms`));
      }, timeoutMs);
      const onJoin = (info: PageInfo) => {
        clearTimeout(timer);
        resolve(info);
      };
      this.once('join', onJoin);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.link?.close(1001, 'the bridge stopped this game');
    this.wss.close();
    await this.door?.close();
  }
}

/** "No page" as the port writes it (docs/CONTRACT.md, "Browser games"): the body of a 503. */
export function noPageBody(a: NoPage): Record<string, unknown> {
  return { ok: false, error: `GameOffline: ${a.noPage}`, ...(a.interrupted ? { interrupted: true } : {}) };
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body) ?? 'null';
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
