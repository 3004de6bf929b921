/**
 * The one guard of every HTTP door the daemon opens on 127.0.0.1: its own listener
 * (daemon/doors/server.ts), each browser game's page carrier (daemon/web/carrier.ts) and each static
 * site (daemon/web/static.ts). Anyone on the machine can reach a loopback port, and every page
 * in every browser can send requests to one, so each door is built and checked the same way:
 *
 *   const server = guardedServer({ cap: 64 }, onRequest)    bounds: connections, header deadline
 *   const port = await listenLoopback(server, 0, 'page carrier')   127.0.0.1 only, exclusive
 *   hostRefusal(req, port)            the Host names this port (DNS rebinding)
 *   browserRefusal(req, trusted)      Origin / Sec-Fetch-Site: only the door's own pages
 *   refuse(res, r) / refuseUpgrade(socket, r)   the one way a refusal is written
 *   openLoopbackDoor({ cap, port, what, onRequest })   all of the above for a door pages reach
 *
 * An audit held ~20k idle connections open on a door without bounds and the daemon ran out of
 * descriptors; every door is therefore capped and drops a request whose headers are slow.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { numberSetting, SETTINGS } from './settings.js';

/** Why a request was refused: the HTTP status, the one line sent back, and any header it needs. */
export interface Refusal {
  status: number;
  error: string;
  headers?: Record<string, string>;
}

/** The daemon's own listener: connections at once (proxies, HTTP clients, upgrades and strays alike). */
export function maxConnections(env = process.env): number {
  return numberSetting(SETTINGS.maxConnections, env);
}

/** A page carrier: the page's socket, tools and curl (a page reloading opens a second one for a moment). */
export const CARRIER_CONNECTIONS = 64;
/** A static site: a browser opens a handful of connections per page, a person's curl one more. */
export const STATIC_CONNECTIONS = 256;

/** node:http options: a request's headers within 5 s, its body within 30 s, checked every second. */
export const LISTENER_OPTIONS: http.ServerOptions = {
  headersTimeout: 5000,
  requestTimeout: 30000,
  connectionsCheckingInterval: 1000,
};

/** An idle keep-alive connection is closed after this long. */
const KEEP_ALIVE_MS = 5000;

export interface DoorBounds {
  /** connections at once; the next one is closed at accept */
  cap: number;
  /** node:http's own header size limit, when the door needs more than its default */
  maxHeaderSize?: number;
}

/**
 * An HTTP server with the door's bounds: at most `cap` connections (more are closed at once), a
 * peer that is not loopback closed at once (the bind is loopback; this holds should it ever not
 * be), headers within 5 s, idle keep-alive connections closed after 5 s.
 */
export function guardedServer(bounds: DoorBounds, onRequest?: http.RequestListener): http.Server {
  const server = http.createServer({ ...LISTENER_OPTIONS, maxHeaderSize: bounds.maxHeaderSize }, onRequest);
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  let open = 0;
  server.on('connection', (socket: Socket) => {
    if (open >= bounds.cap || !isLoopback(socket.remoteAddress)) return void socket.destroy();
    open++;
    socket.once('close', () => open--);
  });
  return server;
}

/** 127.0.0.0/8 or ::1, in either of the forms node reports them. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** Binds 127.0.0.1:`port` (0: any free port) exclusively; a busy port is a readable error naming `what`. */
export function listenLoopback(server: http.Server, port: number, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (e: NodeJS.ErrnoException) => {
      server.off('listening', listening);
      const why = e.code === 'EADDRINUSE' ? 'the port is already in use' : e.message;
      reject(Object.assign(new Error(`cannot listen on 127.0.0.1:${port}: ${why} (${what})`), { code: e.code }));
    };
    const listening = () => {
      server.off('error', failed);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', failed).once('listening', listening);
    server.listen({ port, host: '127.0.0.1', exclusive: true });
  });
}

/** The origins a door's own pages have. */
export const ownOrigins = (port: number): string[] => [`http://127.0.0.1:${port}`, `http://localhost:${port}`];

/** Host must name this loopback port exactly, once; a rebinding attacker's name does not. */
export function hostRefusal(req: IncomingMessage, port: number): Refusal | undefined {
  // Node keeps the first of two Host headers; a proxy in front could read the other one.
  const raw: string[] = req.rawHeaders ?? [];
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === 'host') hosts++;
  if (hosts > 1) return { status: 400, error: 'Bad Request: more than one Host header' };
  const host = req.headers.host;
  if (host === `127.0.0.1:${port}` || host === `localhost:${port}`) return undefined;
  return {
    status: 403,
    error: `Forbidden: unexpected Host header '${clip(host ?? '')}' (this port answers 127.0.0.1:${port} only)`,
  };
}

/**
 * A request a browser sends must come from one of the `trusted` origins (the door's own pages);
 * tools and curl send neither Origin nor Sec-Fetch-Site. `cross-site` is refused whatever the
 * Origin, and so is a `same-site` request without a trusted Origin: a no-cors GET or an <img>
 * from another local server's page (any other port of 127.0.0.1 is "same-site") carries no
 * Origin at all. `none` (a person typing the URL, a link opened from outside) and
 * `same-origin` are allowed.
 */
export function browserRefusal(req: IncomingMessage, trusted: string[]): Refusal | undefined {
  const site = req.headers['sec-fetch-site'];
  const origin = req.headers.origin;
  const ok = origin !== undefined && trusted.includes(origin);
  if (site === 'cross-site') return { status: 403, error: 'Forbidden: cross-site browser requests are refused here' };
  if (origin !== undefined && !ok)
    return {
      status: 403,
      error: `Forbidden: requests from origin '${clip(origin)}' are refused (only this port's own pages may call it)`,
    };
  if (site === 'same-site' && !ok)
    return {
      status: 403,
      error: 'Forbidden: a browser request from another local site is refused (no Origin of ours)',
    };
  return undefined;
}

/** Writes a refusal: plain text by default, `{ok: false, accepted: false, error}` where a door answers JSON. */
export function refuse(res: ServerResponse, r: Refusal, as: 'text' | 'json' = 'text', headers = {}): void {
  const body = as === 'json' ? JSON.stringify({ ok: false, accepted: false, error: r.error }) : `${r.error}\n`;
  res
    .writeHead(r.status, {
      'content-type': as === 'json' ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...headers,
      ...r.headers,
    })
    .end(res.req?.method === 'HEAD' ? undefined : body);
}

/** Refuses a WebSocket upgrade on its raw socket. */
export function refuseUpgrade(socket: Duplex, r: Refusal): void {
  const text = `${r.error}\n`;
  const extra = Object.entries(r.headers ?? {})
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${r.status} ${http.STATUS_CODES[r.status] ?? ''}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n${extra}Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}

/** A door a browser page may reach: bound, guarded, and closed as one. */
export interface LoopbackDoor {
  readonly server: http.Server;
  readonly port: number;
  close(): Promise<void>;
}

export interface LoopbackDoorOptions extends DoorBounds {
  /** 0: any free port */
  port: number;
  /** what the door is, in the error a busy port gives */
  what: string;
  /** how a refusal is written (the door's own answers are JSON or text) */
  as?: 'text' | 'json';
  /** origins whose pages may call the door beside its own, asked at each request (the game's page may change) */
  alsoTrusted?: () => string[];
  /** a request that passed the Host and browser checks */
  onRequest: http.RequestListener;
}

/**
 * A door for browser pages (a page carrier, a static site): guardedServer's bounds, bound to
 * 127.0.0.1, and every HTTP request's Host and browser checks made before the door's own handler
 * sees it, so the doors cannot differ in what they let through. A WebSocket upgrade does not
 * pass through the request handler: a door that takes upgrades listens for them on `server`
 * and makes the same checks itself (the page carrier's join does, web/carrier.ts).
 */
export async function openLoopbackDoor(options: LoopbackDoorOptions): Promise<LoopbackDoor> {
  const server = guardedServer(options, (req, res) => {
    const trusted = [...ownOrigins(port), ...(options.alsoTrusted?.() ?? [])];
    const refused = hostRefusal(req, port) ?? browserRefusal(req, trusted);
    if (refused) return refuse(res, refused, options.as);
    options.onRequest(req, res);
  });
  const port = await listenLoopback(server, options.port, options.what);
  return { server, port, close: () => closeDoor(server) };
}

/** Closes a door: no new connections, the open ones cut. */
export function closeDoor(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

const WINDOW_MS = 60_000;

/** At most `perWindow` refusal lines a minute; the rest are counted in one line when the minute ends. */
export class RefusalLog {
  private windowStart = 0;
  private inWindow = 0;
  private dropped = 0;

  constructor(
    private readonly log: (line: string) => void,
    private readonly perWindow = 10,
  ) {}

  note(line: string): void {
    const now = Date.now();
    if (now - this.windowStart >= WINDOW_MS) {
      if (this.dropped) this.log(`${this.dropped} more refusals in the last minute were not logged one by one`);
      this.windowStart = now;
      this.inWindow = 0;
      this.dropped = 0;
    }
    if (++this.inWindow <= this.perWindow) this.log(line);
    else this.dropped++;
  }
}

/** A header's value in an error line: bounded, and printable. */
function clip(s: string): string {
  const t = s.replace(/[^\x20-\x7e]/g, '?');
  return t.length > 80 ? `${t.slice(0, 80)}…` : t;
}
