/**
 * MCP over Streamable HTTP at `/mcp` (docs/DECISIONS.md, "Protocol versions and HTTP"). The
 * daemon's listener has already checked the token, the Host and the Origin.
 *
 * A 2025-era client opens a session with `initialize`: one SDK transport and one engine session
 * for it, found again by its `Mcp-Session-Id`. A 2026-era request carries its own version and
 * capabilities and belongs to no session: the SDK's per-request handler serves it from an engine
 * session that lives for that one request.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { rpcError, RpcCode } from '../../shared/jsonrpc.js';
import {
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  type NodeMcpRequestHandler,
} from '@modelcontextprotocol/node';
import { getRequestListener } from '@hono/node-server';
import { createMcpHandler, isInitializeRequest, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { EngineSession } from '../sessions/session.js';
import { VIEWS, type View } from '../../shared/config.js';
import { readJsonBody } from './body.js';
import { HttpListenWatches } from './listen-watch.js';
import { numberSetting, SETTINGS } from '../../shared/settings.js';

/** A 2025-era HTTP session no request has touched for this long, with no stream open, is ended. */
export const HTTP_SESSION_IDLE_MS = numberSetting(SETTINGS.httpSessionIdleMs);

export interface HttpSessionHost {
  /** a new engine session for an HTTP client, under `id`; `view` from the URL (`/mcp?view=player`) */
  open(id: string, view?: View): EngineSession;
  log(line: string): void;
}

interface LegacySession {
  transport: NodeStreamableHTTPServerTransport;
  session: EngineSession;
  lastSeen: number;
  /** GET streams held open by the client: a session listening is not idle */
  streams: number;
}

/**
 * Hono's light Request and Response become the globals (its default for any server it runs):
 * the SDK's transport answers with `new Response(json)`, and hono writes a light one straight to
 * the socket, where an undici Response is read back through a web stream, a large part of the
 * daemon's CPU per HTTP call. `fetch` keeps its own classes.
 */
function useLightResponses(): void {
  getRequestListener(() => new Response(null));
}

export class McpHttpRoute {
  private readonly legacy = new Map<string, LegacySession>();
  private readonly modernHandler: McpHttpHandler;
  private readonly modern: NodeMcpRequestHandler;
  /** 2026-era requests of the player view: a handler of their own, so the view is fixed by the URL alone */
  private readonly modernPlayerHandler: McpHttpHandler;
  private readonly modernPlayer: NodeMcpRequestHandler;
  private readonly sweeper: NodeJS.Timeout;
  private readonly listens: HttpListenWatches;

  constructor(private readonly host: HttpSessionHost) {
    this.listens = new HttpListenWatches(
      () => host.open(`http-listen-${randomUUID()}`),
      () => this.modernHandler.notify,
    );
    useLightResponses();
    const onerror = (e: Error) => host.log(`http /mcp: ${e.message}`);
    this.modernHandler = createMcpHandler(() => this.requestServer(), { legacy: 'reject', onerror });
    this.modern = toNodeHandler(this.modernHandler, { onerror });
    this.modernPlayerHandler = createMcpHandler(() => this.requestServer('player'), { legacy: 'reject', onerror });
    this.modernPlayer = toNodeHandler(this.modernPlayerHandler, { onerror });
    this.sweeper = setInterval(() => this.sweep(), Math.min(60000, HTTP_SESSION_IDLE_MS / 4));
    this.sweeper.unref();
  }

  /** 2025-era sessions open over HTTP (for status and the idle check). */
  sessionCount(): number {
    return this.legacy.size;
  }

  /** One request to `/mcp`. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJsonBody(req);
      if (!read.ok)
        return void res.writeHead(read.status, { 'content-type': 'application/json' }).end(JSON.stringify(read.answer));
      body = read.body;
    }
    const view = new URL(req.url ?? '/', 'http://x').searchParams.get('view') ?? undefined;
    if (view !== undefined && !(VIEWS as readonly string[]).includes(view)) {
      const message = `BridgeUsageError: bad view '${view.slice(0, 40)}' in the URL: give /mcp?view=player (or debug).`;
      const answer = { jsonrpc: '2.0', id: null, error: { code: -32602, message } };
      return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    }
    const sid = req.headers['mcp-session-id'];
    // a session keeps the view it was opened with: a later request cannot change it
    if (typeof sid === 'string') return this.inSession(sid, req, res, body);
    if (req.method === 'POST' && isInitializeRequest(body)) return this.openSession(req, res, body, view as View);
    this.listens.note(body, res);
    return view === 'player' ? this.modernPlayer(req, res, body) : this.modern(req, res, body);
  }

  /** Shutdown: end every HTTP session and refuse further requests. */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.legacy.values()].map((s) => s.transport.close().catch(() => undefined)));
    await this.modernHandler.close().catch(() => undefined);
    await this.modernPlayerHandler.close().catch(() => undefined);
  }

  /** A request of a 2025-era session; an unknown id is a 404, which tells the client to initialize again. */
  private async inSession(sid: string, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const s = this.legacy.get(sid);
    if (!s) {
      const answer = rpcError(
        null,
        RpcCode.SessionNotFound,
        'Session not found: this daemon does not know that Mcp-Session-Id (it restarted, or the session ended); initialize again',
      );
      return void res.writeHead(404, { 'content-type': 'application/json' }).end(answer);
    }
    s.lastSeen = Date.now();
    if (req.method === 'GET') {
      s.streams++;
      res.once('close', () => {
        s.streams--;
        s.lastSeen = Date.now();
      });
    }
    await s.transport.handleRequest(req, res, body);
  }

  /** `initialize` without a session id: a new 2025-era session, one engine session for it. */
  private async openSession(req: IncomingMessage, res: ServerResponse, body: unknown, view?: View): Promise<void> {
    const id = randomUUID();
    const session = this.host.open(`http-${id}`, view);
    // Plain JSON answers, not an SSE stream per POST: about a quarter less CPU per call (bench item 9);
    // what is lost is progress notifications during a call. Notifications outside calls use the GET stream.
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => id, enableJsonResponse: true });
    const server = session.buildServer();
    const entry: LegacySession = { transport, session, lastSeen: Date.now(), streams: 0 };
    server.onclose = () => this.endSession(id, entry);
    this.legacy.set(id, entry);
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize the transport refused (bad params) opened no session.
    if (transport.sessionId === undefined) await transport.close().catch(() => undefined);
  }

  private endSession(id: string, entry: LegacySession): void {
    if (this.legacy.get(id) === entry) this.legacy.delete(id);
    entry.session.close().catch((e) => this.host.log(`http session ${id} close failed: ${String(e)}`));
  }

  /** The server for one 2026-era request; its engine session ends with the request. */
  private requestServer(view?: View) {
    const session = this.host.open(`http-${randomUUID()}`, view);
    const server = session.buildServer();
    server.onclose = () => void session.close().catch(() => undefined);
    return server;
  }

  /** End the 2025-era sessions nobody has used for a while (clients rarely send DELETE). */
  private sweep(now = Date.now()): void {
    for (const [id, s] of this.legacy) {
      if (s.streams === 0 && now - s.lastSeen >= HTTP_SESSION_IDLE_MS) {
        this.host.log(`http session ${id} idle for ${HTTP_SESSION_IDLE_MS}ms; ending it`);
        void s.transport.close().catch(() => undefined);
      }
    }
  }
}
