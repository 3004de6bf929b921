/**
 * The dashboard (docs/DASHBOARD.md): a live page served by the daemon under /dashboard. Loaded
 * on the first request for it, so a daemon nobody looks at pays nothing. The server checks
 * Host, Origin and Sec-Fetch-Site (shared/loopback.ts) before anything reaches here; this
 * module checks the key, the page's secret (./access.ts) and the Origin again.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallSummary } from '../feed/calls.js';
import { callsForPage } from './batch.js';
import { DashboardAccess, KEY_TTL_MS, SECRET_TTL_MS } from './access.js';
import { callRecord, formCall, readBody, screenshot, sessionTrace, skillRecord, toolsets, uiTree } from './api.js';
import type { DashboardHost } from './host.js';
import { DashboardModel } from './model.js';
import { sendAsset, sendJson, sendText } from './respond.js';
import { EventStream } from './stream.js';
import type { DashboardHello } from './view.js';

export interface Dashboard {
  /** POST /dashboard/key, already authenticated by the bearer token: a one-time page URL. */
  mintKey(): { url: string; key: string; expiresInMs: number };
  /** Any other /dashboard request. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  close(): void;
}

const ASSETS = new Set(['app.js', 'app.css', 'favicon.svg']);
/** Four feed updates a second: as fast as anyone reads, and a flood costs the page little. */
const CALL_BATCH_MS = 250;
/** Calls sent per update at most (40 rows a second under a flood): every failure first, then the newest successes. */
const MAX_BATCH = 10;

export function createDashboard(host: DashboardHost): Dashboard {
  const access = new DashboardAccess(host.port);
  const stream = new EventStream(
    (send) => void hello().then((h) => send('hello', h)),
    (count) => (count > 0 ? model.start() : model.stop()),
  );
  const model = new DashboardModel(host, (state) => stream.send('state', state));
  // Calls go out in small batches: under a load of thousands of calls a second, one event per
  // call would cost the daemon a write each and the page a render each.
  let pending: CallSummary[] = [];
  let flush: NodeJS.Timeout | undefined;
  const onCall = (c: CallSummary) => {
    if (!stream.count) return;
    pending.push(c);
    flush ??= setTimeout(() => {
      flush = undefined;
      const batch = callsForPage(pending, MAX_BATCH);
      pending = [];
      stream.send('calls', batch);
    }, CALL_BATCH_MS);
  };
  host.state.feed.on('call', onCall);

  const hello = async (): Promise<DashboardHello> => ({
    daemon: { pid: process.pid, version: host.version, port: host.port(), home: host.home, startedAt: host.startedAt },
    calls: host.state.feed.recent(),
    state: await model.state(),
  });

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const port = Number(url.searchParams.get('port'));
    if (req.method === 'GET' && path === '/dashboard/events') return stream.open(req, res);
    if (req.method === 'GET' && path.startsWith('/dashboard/api/calls/'))
      return callRecord(host, res, Number(path.slice('/dashboard/api/calls/'.length)));
    if (req.method === 'GET' && path === '/dashboard/api/toolsets' && Number.isInteger(port))
      return toolsets(host, res, port);
    const name = url.searchParams.get('name');
    if (req.method === 'GET' && path === '/dashboard/api/skill' && Number.isInteger(port) && name)
      return skillRecord(host, res, port, name);
    if (req.method === 'GET' && path === '/dashboard/api/screenshot' && Number.isInteger(port))
      return screenshot(host, res, port);
    if (req.method === 'GET' && path === '/dashboard/api/ui' && Number.isInteger(port)) return uiTree(host, res, port);
    if (req.method === 'POST' && path === '/dashboard/api/call') return formCall(host, req, res);
    const session = url.searchParams.get('session');
    if (req.method === 'GET' && path === '/dashboard/api/trace' && session && Number.isInteger(port))
      return sessionTrace(host, res, session, port);
    sendJson(res, 404, { error: `no dashboard route ${req.method} ${path}` });
  };

  /**
   * POST /dashboard/login {key} from the page's own script (a fetch always sends its Origin):
   * the one-time key buys the page's secret, which the page keeps where only its origin reads.
   */
  const login = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!access.ownOrigin(req.headers.origin))
      return sendJson(res, 403, { error: 'Forbidden: only the dashboard page itself may log in' });
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? ''))
      return sendJson(res, 415, { error: 'send JSON' });
    const body = JSON.parse(await readBody(req)) as { key?: unknown };
    const secret = typeof body.key === 'string' ? access.redeem(body.key) : undefined;
    if (!secret)
      return sendJson(res, 403, {
        error:
          'Forbidden: this dashboard key was already used or has expired. Run `game-bridge-mcp dashboard` for a new one.',
      });
    sendJson(res, 200, { secret, expiresInMs: SECRET_TTL_MS });
  };

  return {
    mintKey() {
      const key = access.mintKey();
      return { key, url: `http://127.0.0.1:${host.port()}/dashboard?key=${key}`, expiresInMs: KEY_TTL_MS };
    },
    handle(req, res) {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (!access.originOk(req)) return sendText(res, 403, 'Forbidden: requests from another site are refused');
      const path = url.pathname.replace(/\/+$/, '') || '/';
      // The page and its files hold nothing secret: anyone on the host may load them, and the
      // page's script then logs in with the key in its address.
      if (req.method === 'GET' && path === '/dashboard') return sendAsset(res, 'index.html');
      if (req.method === 'GET' && ASSETS.has(path.slice('/dashboard/'.length)))
        return sendAsset(res, path.slice('/dashboard/'.length));
      if (req.method === 'POST' && path === '/dashboard/login')
        return void login(req, res).catch((e) => {
          if (!res.headersSent) sendJson(res, 400, { error: String(e) });
        });
      if (!access.hasSecret(req))
        return sendText(
          res,
          401,
          'Unauthorized: open the URL that `game-bridge-mcp dashboard` prints (its key logs the page in).',
        );
      route(req, res, url).catch((e) => {
        host.log(`dashboard: ${req.method} ${url.pathname} failed: ${String(e)}`);
        if (!res.headersSent) sendJson(res, 500, { error: String(e) });
        else res.end();
      });
    },
    close() {
      host.state.feed.off('call', onCall);
      model.stop();
      stream.closeAll();
    },
  };
}
