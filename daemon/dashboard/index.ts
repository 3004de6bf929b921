/**
 * The dashboard (docs/DASHBOARD.md): a live page served by the daemon under /dashboard. Loaded
 * on the first request for it, so a daemon nobody looks at pays nothing. The server checks
 * Host, Origin and Sec-Fetch-Site (shared/loopback.ts) before anything reaches here; this
 * module checks the key, the cookie and the Origin again.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallSummary } from '../feed/calls.js';
import { callsForPage } from './batch.js';
import { DashboardAccess, KEY_TTL_MS } from './access.js';
import { callRecord, formCall, screenshot, toolsets, uiTree } from './api.js';
import type { DashboardHost } from './host.js';
import { DashboardModel } from './model.js';
import { SECURITY_HEADERS, sendAsset, sendJson, sendText } from './respond.js';
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
    if (req.method === 'GET' && path === '/dashboard') return sendAsset(res, 'index.html');
    if (req.method === 'GET' && ASSETS.has(path.slice('/dashboard/'.length)))
      return sendAsset(res, path.slice('/dashboard/'.length));
    if (req.method === 'GET' && path === '/dashboard/events') return stream.open(req, res);
    if (req.method === 'GET' && path.startsWith('/dashboard/api/calls/'))
      return callRecord(host, res, Number(path.slice('/dashboard/api/calls/'.length)));
    if (req.method === 'GET' && path === '/dashboard/api/toolsets' && Number.isInteger(port))
      return toolsets(host, res, port);
    if (req.method === 'GET' && path === '/dashboard/api/screenshot' && Number.isInteger(port))
      return screenshot(host, res, port);
    if (req.method === 'GET' && path === '/dashboard/api/ui' && Number.isInteger(port)) return uiTree(host, res, port);
    if (req.method === 'POST' && path === '/dashboard/api/call') return formCall(host, req, res);
    sendJson(res, 404, { error: `no dashboard route ${req.method} ${path}` });
  };

  return {
    mintKey() {
      const key = access.mintKey();
      return { key, url: `http://127.0.0.1:${host.port()}/dashboard?key=${key}`, expiresInMs: KEY_TTL_MS };
    },
    handle(req, res) {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (!access.originOk(req)) return sendText(res, 403, 'Forbidden: requests from another site are refused');
      const key = url.searchParams.get('key');
      if (req.method === 'GET' && url.pathname === '/dashboard' && key !== null) {
        const cookie = access.redeem(key);
        // Opened from another site (the local file `game-bridge-mcp dashboard` hands the
        // browser): a page of ours that moves on to /dashboard, since the SameSite=Strict cookie
        // would not ride on a redirect of a cross-site navigation. Otherwise a plain redirect.
        if (cookie && req.headers['sec-fetch-site'] === 'cross-site')
          return sendText(res, 200, '', {
            'content-type': 'text/html; charset=utf-8',
            refresh: '0;url=/dashboard',
            'set-cookie': access.setCookieHeader(cookie),
          });
        if (cookie)
          return void res
            .writeHead(303, {
              ...SECURITY_HEADERS,
              location: '/dashboard',
              'set-cookie': access.setCookieHeader(cookie),
              'cache-control': 'no-store',
            })
            .end();
        if (access.hasCookie(req))
          return void res
            .writeHead(303, { ...SECURITY_HEADERS, location: '/dashboard', 'cache-control': 'no-store' })
            .end();
        return sendText(
          res,
          403,
          'Forbidden: this dashboard key was already used or has expired. Run `game-bridge-mcp dashboard` for a new one.',
        );
      }
      if (!access.hasCookie(req))
        return sendText(
          res,
          401,
          'Unauthorized: open the URL that `game-bridge-mcp dashboard` prints (its key logs this browser in).',
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
