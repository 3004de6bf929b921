/**
 * The daemon's plain-HTTP routes, for requests the server has already let in (daemon/doors/access.ts):
 * `GET /status`, `POST /stop` and `POST /dashboard/key` for the CLI, and `/mcp`, MCP over
 * Streamable HTTP (daemon/http/mcp-route.ts). The dashboard's page (/dashboard...) is checked for
 * Host and browser origin by DaemonAccess too, and by its own module for the rest (key, the
 * page's secret). Both modules are loaded on their first request, so a daemon no HTTP client or
 * page uses never pays for them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { rpcError, RpcCode } from '../../shared/jsonrpc.js';
import type { DaemonState } from '../state/state.js';
import { createEngineSession } from '../sessions/session.js';
import { isDashboardPage, loadDashboard, type Dashboard } from './dashboard-loader.js';
import { httpSessionConfig } from '../sessions/client-config.js';
import type { McpHttpRoute } from '../http/mcp-route.js';

/** What the routes need from the daemon. */
export interface RouteDeps {
  state: DaemonState;
  log: (line: string) => void;
  /** `game-bridge-mcp stop` */
  onStop: () => void;
  /** extra facts for `status` (pid, version, uptime...) */
  statusFacts: () => Record<string, unknown>;
  /** the working directory HTTP clients' sessions use (they send none): where the daemon was started */
  httpCwd?: string;
  /** the port we listen on (the dashboard's links and Origin check) */
  port: () => number;
  /** proxy connections open now, for `status` */
  connectionCount: () => number;
}

export class DaemonRoutes {
  private dashboardModule?: Promise<Dashboard>;
  private mcpRoute?: Promise<McpHttpRoute>;

  constructor(private readonly deps: RouteDeps) {}

  /** What a refusal of the dashboard's page carries: nothing of it may be framed or run. */
  static readonly pageHeaders = {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };

  /** The dashboard's page, which the server lets through before the token check (it has its own key). */
  static isPage(req: IncomingMessage): boolean {
    return isDashboardPage(req.url) && !(req.method === 'POST' && req.url === '/dashboard/key');
  }

  /** Serve the dashboard's page (the Host was checked). */
  page(req: IncomingMessage, res: ServerResponse): void {
    void this.dashboard()
      .then((d) => d.handle(req, res))
      .catch((e) => this.dashboardFailed(res, e));
  }

  /** Serve an authenticated request. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    if (req.url === '/mcp' || req.url?.startsWith('/mcp?')) return void this.serveMcp(req, res);
    if (req.method === 'GET' && req.url === '/status') {
      const body = {
        ...this.deps.statusFacts(),
        connections: this.deps.connectionCount(),
        ...safeStatus(this.deps.state),
      };
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    }
    if (req.method === 'POST' && req.url === '/stop') {
      res.writeHead(202, { 'content-type': 'application/json' }).end('{"stopping":true}');
      this.deps.onStop();
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

  /** Close the dashboard's streams and every HTTP MCP session. */
  async closeAll(): Promise<void> {
    void this.dashboardModule?.then((d) => d.close()).catch(() => undefined);
    const route = this.mcpRoute;
    if (route) await route.then((r) => r.closeAll()).catch(() => undefined);
  }

  /** The dashboard module, loaded (and given what it may see) on first use. */
  private dashboard(): Promise<Dashboard> {
    this.dashboardModule ??= loadDashboard({
      state: this.deps.state,
      port: this.deps.port,
      log: this.deps.log,
      facts: this.deps.statusFacts,
    }).catch((e) => {
      this.dashboardModule = undefined;
      throw e;
    });
    return this.dashboardModule;
  }

  private dashboardFailed(res: ServerResponse, e: unknown): void {
    this.deps.log(`dashboard failed: ${(e as Error)?.stack ?? String(e)}`);
    if (!res.headersSent)
      res.writeHead(500, { 'content-type': 'text/plain' }).end('The dashboard could not be loaded; see daemon.log.\n');
  }

  /** `/mcp`: the route module is loaded on the first request. */
  private async serveMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      this.mcpRoute ??= import('../http/mcp-route.js').then(
        ({ McpHttpRoute }) =>
          new McpHttpRoute({
            open: (id, view) => {
              const config = httpSessionConfig(this.deps.httpCwd ?? process.cwd(), process.env);
              // the URL can narrow the daemon's own view to the player's, never widen it
              if (view === 'player') config.view = 'player';
              return createEngineSession(this.deps.state, config, id);
            },
            log: this.deps.log,
          }),
      );
      await (await this.mcpRoute).handle(req, res);
    } catch (e) {
      this.deps.log(`/mcp failed: ${e instanceof Error ? e.stack : String(e)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(rpcError(null, RpcCode.InternalError, `Internal error: ${String(e)}`));
    }
  }
}

/** The daemon's state for `status`; a failure to gather it is reported, not thrown. */
function safeStatus(state: DaemonState): Record<string, unknown> {
  try {
    return state.status() as Record<string, unknown>;
  } catch (e) {
    return { statusError: String(e) };
  }
}
