/**
 * 8. Dashboard: first paint of the page (cold: the first request loads the dashboard module;
 * warm: later visits), and call throughput with the page open and streaming vs closed. The load
 * is the throughput measurement's (N clients, sequential get_state on one launched game);
 * rounds alternate closed, open, closed, open.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { dashboardUrl, startBrowser } from './browser.js';
import { cpuMs, groupCpu, groupCpuSince } from './cpu.js';
import { connectMcp, daemonPid, freeRange, GAME, median, now, round, type Mcp, type Reaper } from './harness.js';
import { ms, x, type BenchConfig, type Measurement } from './types.js';

/** A project whose gamebridge.json launches the example game (with its screenshot) on `port`. */
export function gameProject(r: Reaper, port: number, name = 'Crate Stack'): string {
  const dir = r.tempDir('gb-bench-proj-');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'gamebridge.json'),
    JSON.stringify({
      name,
      launch: {
        command: `node "${GAME}" --port {port} --screenshot --name "${name}"`,
        portRange: String(port),
        readyTimeoutMs: 30000,
      },
    }),
  );
  return dir;
}

/** Open the page with a fresh key; its first contentful paint and when the game's card showed. */
async function visit(page: Page, url: string, port: number): Promise<{ fcp: number; card: number }> {
  await page.goto(url);
  await page.locator(`article.card[data-port="${port}"]`).waitFor({ timeout: 15000 });
  return page.evaluate(() => ({
    fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
    card: performance.now(),
  }));
}

/** First paint of a minimal page from a bare node server: what the machine and browser cost. */
async function plainPagePaint(browser: import('playwright-core').Browser, runs: number): Promise<number> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>plain</title><h1>plain page</h1>'),
  );
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  const paints: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(url);
      await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0);
      paints.push(await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0].startTime));
      await context.close();
    }
  } finally {
    server.close();
  }
  return median(paints);
}

export async function measureDashboard(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-dash-');
  const [port] = await freeRange(1);
  const owner = await connectMcp(r, 'proxy', home, [], gameProject(r, port));
  const launched = await owner.call('launch_instance', {});
  const chromium = await startBrowser(r);
  try {
    const visits: Array<{ fcp: number; card: number }> = [];
    for (let i = 0; i < cfg.runs; i++) {
      const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 800 } });
      visits.push(await visit(await context.newPage(), await dashboardUrl(home), port));
      await context.close();
    }
    const warm = visits.slice(1);
    const plain = await plainPagePaint(chromium.browser, cfg.runs);

    const clients: Mcp[] = [];
    for (let i = 0; i < cfg.clients; i++) clients.push(await connectMcp(r, 'proxy', home));
    const load = async (calls: number) => {
      const t = now();
      await Promise.all(
        clients.map(async (c) => {
          for (let i = 0; i < calls; i++) await c.call('call_tool', { port, name: 'get_state' });
        }),
      );
      return now() - t;
    };
    await load(20); // warm
    const half = Math.ceil(cfg.callsPerClient / 2);
    const wall = { closed: 0, open: 0 };
    // Where the page's cost lands: CPU of the daemon, the game and the browser while each half runs.
    const daemon = daemonPid(home)!;
    const game = Number(launched.pid);
    const cpuNow = () => ({
      daemon: cpuMs(daemon),
      game: cpuMs(game),
      browser: groupCpu(chromium.pid ?? -1),
    });
    const cpu = { closed: { daemon: 0, game: 0, browser: 0 }, open: { daemon: 0, game: 0, browser: 0 } };
    const timed = async (mode: 'closed' | 'open', calls: number) => {
      const before = cpuNow();
      wall[mode] += await load(calls);
      const after = cpuNow();
      cpu[mode].daemon += after.daemon - before.daemon;
      cpu[mode].game += after.game - before.game;
      cpu[mode].browser += groupCpuSince(before.browser, after.browser);
    };
    let rows = 0;
    for (let round_ = 0; round_ < 2; round_++) {
      await timed('closed', half);
      const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await visit(page, await dashboardUrl(home), port);
      await timed('open', half);
      rows = await page.locator('#feed li').count();
      await context.close();
    }
    for (const c of clients) await c.close();
    const total = cfg.clients * half * 2;
    const closed = total / (wall.closed / 1000);
    const open = total / (wall.open / 1000);
    const fcpWarm = median(warm.map((v) => v.fcp));
    const perCall = (c: Record<string, number>) =>
      Object.fromEntries(Object.entries(c).map(([k, v]) => [k, round(v / total, 3)]));
    return {
      name: 'dashboard',
      figures: {
        firstPaintMs: {
          cold: round(visits[0].fcp, 1),
          warmMedian: round(fcpWarm, 1),
          plainPageMedian: round(plain, 1),
        },
        gameShownMs: { cold: round(visits[0].card, 1), warmMedian: round(median(warm.map((v) => v.card)), 1) },
        visits: visits.length,
        throughput: {
          clients: cfg.clients,
          callsPerClient: half * 2,
          closed: round(closed, 0),
          open: round(open, 0),
          ratio: round(open / closed, 3),
          feedRowsShown: rows,
          cpuMsPerCall: {
            closed: perCall(cpu.closed),
            open: perCall(cpu.open),
          },
        },
      },
      rows: [
        {
          id: '8 dashboard',
          what: 'first paint, cold (the first request loads the module)',
          value: ms(visits[0].fcp, 0),
          met: null,
        },
        {
          id: '8 dashboard',
          what: `first paint, warm median of ${warm.length}`,
          value: ms(fcpWarm, 0),
          reference: 'a plain page',
          vs: `${ms(plain, 0)} → ${x(fcpWarm / plain)}`,
          target: '≤ 300 ms',
          met: fcpWarm <= 300,
        },
        {
          id: '8 dashboard',
          what: `${cfg.clients} clients × ${half * 2} get_state, page open and streaming`,
          value: `${open.toFixed(0)} calls/s`,
          reference: 'page closed',
          vs: `${closed.toFixed(0)} calls/s → ${((open / closed) * 100).toFixed(0)}%`,
          target: '≥ 95%',
          met: open / closed >= 0.95,
        },
        {
          id: '8 dashboard',
          what: 'CPU per call, page open: daemon / game / browser',
          value: Object.values(perCall(cpu.open))
            .map((v) => ms(v, 3))
            .join(' / '),
          reference: 'page closed',
          vs: Object.values(perCall(cpu.closed))
            .map((v) => ms(v, 3))
            .join(' / '),
          met: null,
        },
      ],
    };
  } finally {
    await chromium.close();
    await owner.close();
  }
}
