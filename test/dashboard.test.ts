/**
 * The dashboard in real Chromium against a real daemon, real proxies (the official SDK client)
 * and the example game: it lists a launched game, shows an SDK client's call within a second,
 * calls a tool from its form, and moves a stopped game to "exited". Plain HTTP checks the
 * refusals: no key or secret, a cookie instead, a foreign Origin, a wrong Host, a key used twice.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Locator, Page } from 'playwright-core';
import { startBrowser, type BrowserHandle } from './helpers/browser.js';
import { dashboardUrl, rawRequest } from './helpers/dashboard.js';
import { daemonFacts } from './helpers/fault.js';
import { call, gameCall } from './helpers/mcp.js';
import { pairSuite, type PairSuite } from './helpers/pair.js';
import { freePort } from './helpers/ports.js';
import { CLI, EXAMPLE_GAME, waitFor, waitGone } from './helpers/procs.js';

const run = promisify(execFile);

const suite = pairSuite('gb-dash-');
let chromium: BrowserHandle;

beforeAll(async () => {
  chromium = await startBrowser();
});

afterAll(async () => {
  await chromium?.close();
});

/** A project whose gamebridge.json launches the example game on a free port. */
async function project(s: PairSuite): Promise<{ dir: string; port: number }> {
  const dir = join(s.home, 'project');
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  writeFileSync(
    join(dir, 'gamebridge.json'),
    JSON.stringify({
      name: 'Crate Stack',
      launch: {
        command: `node "${EXAMPLE_GAME}" --port {port} --screenshot`,
        portRange: String(port),
        readyTimeoutMs: 30000,
      },
    }),
  );
  return { dir, port };
}

/** A client that launched the example game, and a page logged in to the dashboard (of `s`'s home). */
async function launchedAndOpen(s: PairSuite = suite): Promise<{
  h: Awaited<ReturnType<typeof suite.open>>;
  port: number;
  pid: number;
  page: Page;
}> {
  const { dir, port } = await project(s);
  const h = await s.open(dir);
  const launched = await call(h, 'launch_instance', {}, 60000);
  expect(launched.isError ? launched.text : 'launched').toBe('launched');
  s.trackGroup(launched.json.pid as number);
  const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(await dashboardUrl(s.home));
  expect(new URL(page.url()).search).toBe(''); // the key is gone from the address bar
  await page.locator('#conn[data-state="live"]').waitFor({ timeout: 10000 });
  return { h, port, pid: launched.json.pid as number, page };
}

/** A page logged in to the dashboard of the daemon running now. */
async function openPage(): Promise<Page> {
  const page = await (await chromium.browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto(await dashboardUrl(suite.home));
  await page.locator('#conn[data-state="live"]').waitFor({ timeout: 10000 });
  return page;
}

test("the page follows a game's life: launched, its calls in the feed within 1 s, then exited", async () => {
  const { h, port, page } = await launchedAndOpen();
  const card = page.locator(`article.card[data-port="${port}"]`);
  await card.waitFor({ timeout: 10000 });
  await expect(card.locator('h3').textContent()).resolves.toContain('Crate Stack');
  await page.locator(`article.card[data-port="${port}"][data-status="live"]`).waitFor({ timeout: 10000 });
  // frames per second from successive /health frames, the owner named by its client, the log tail
  await page.waitForFunction(
    (p) =>
      /^\d+\.\d$/.test(
        document.querySelector(`article.card[data-port="${p}"] dl div:nth-child(5) dd`)?.textContent ?? '',
      ),
    port,
    { timeout: 10000 },
  );
  await expect(card.locator('dl').textContent()).resolves.toContain('jest');
  await expect(card.locator('.log pre').textContent()).resolves.toContain('crate-stack:');
  // the latest screenshot, fetched from the game's /screenshot through the daemon
  await page.waitForFunction(
    (p) =>
      (
        document.querySelector(
          `article.card[data-port="${p}"] figure.shot:not([hidden]) img`,
        ) as HTMLImageElement | null
      )?.naturalWidth === 160,
    port,
    { timeout: 10000 },
  );
  // the session, with the client's name and version from initialize
  await expect(page.locator('#sessions').textContent()).resolves.toContain('jest 1.0.0');

  const r = await gameCall(h, port, 'bump', { tag: 'dash' });
  expect(r.isError).toBe(false);
  const answered = Date.now();
  const row = page.locator('#feed li.call[data-tool="bump"]');
  await row.waitFor({ timeout: 1000 });
  const seenAfterMs = Date.now() - answered;
  expect(seenAfterMs).toBeLessThan(1000);
  await expect(row.locator('summary').textContent()).resolves.toMatch(new RegExp(`call_tool › bump.*:${port}.*OK`));
  // expanding the row shows the call's JSON
  await row.locator('summary').click();
  await expect(row.locator('pre.json').first().textContent({ timeout: 5000 })).resolves.toContain('"tag": "dash"');

  const stopped = await call(h, 'stop_instance', { port }, 60000);
  expect(stopped.isError ? stopped.text : 'stopped').toBe('stopped');
  await page.locator(`article.card[data-port="${port}"][data-status="exited"]`).waitFor({ timeout: 10000 });
  await expect(card.locator('.note.exit').textContent()).resolves.toMatch(/^Stopped by the bridge at /);
  await page.context().close();
});

test('a game killed by a signal shows as killed, with when, how long and its last command, even to a later daemon', async () => {
  const { h, port, pid, page } = await launchedAndOpen();
  await page.locator(`article.card[data-port="${port}"][data-status="live"]`).waitFor({ timeout: 10000 });
  expect((await gameCall(h, port, 'start')).isError).toBe(false);
  process.kill(pid, 'SIGKILL');
  const exited = (p: Page) => p.locator(`article.card[data-port="${port}"][data-status="exited"]`);
  await exited(page).waitFor({ timeout: 10000 });
  const note = /^Killed by signal SIGKILL at \d\d:\d\d:\d\d after [\d.]+s; last command: #1 'start'\.$/;
  await expect(exited(page).locator('.badge').textContent()).resolves.toBe('Killed · SIGKILL');
  await expect(exited(page).locator('.note.exit').textContent()).resolves.toMatch(note);
  await page.context().close();
  // The exit's facts outlive the daemon: the next one's page shows the same card.
  const daemon = await suite.daemonPid();
  process.kill(daemon, 'SIGKILL');
  await waitGone(daemon, 5000);
  expect((await call(h, 'list_instances', {}, 60000)).json.exited).toEqual([
    expect.objectContaining({ port, signal: 'SIGKILL' }),
  ]);
  const later = await openPage();
  await exited(later).waitFor({ timeout: 10000 });
  await expect(exited(later).locator('.badge').textContent()).resolves.toBe('Killed · SIGKILL');
  await expect(exited(later).locator('.note.exit').textContent()).resolves.toMatch(note);
  await later.context().close();
}, 120000);

describe('the form', () => {
  // one home, game and page for the form's steps, each test the next step
  const shared = pairSuite('gb-dash-form-', {}, 'describe');
  let port: number;
  let page: Page;
  let tag: Locator;

  beforeAll(async () => {
    ({ port, page } = await launchedAndOpen(shared));
    tag = page.locator('#try-fields input[name="tag"]');
  }, 120000);

  afterAll(async () => {
    await page?.context().close();
  });

  test("lists the game's tools from their schemas", async () => {
    await page.locator('#try-port').selectOption(String(port));
    await page.locator('#try-tool:not([disabled])').waitFor({ timeout: 10000 });
    await page.locator('#try-tool').selectOption('debug.bump');
    // the field comes from describe_toolset's JSON Schema: a required string
    await expect(tag.getAttribute('required')).resolves.not.toBeNull();
    // Run without the required argument: the form says so and sends nothing
    await page.locator('#try-run').click();
    await expect(page.locator('#try-answer').textContent()).resolves.toContain("'tag' is required");
  });

  test('shows the answer of the call it makes', async () => {
    await tag.fill('from-form');
    await page.locator('#try-run').click();
    await page.locator('#try-answer .badge.s-live').waitFor({ timeout: 10000 });
    const answer = (await page.locator('#try-answer pre').textContent()) ?? '';
    expect(JSON.parse(answer)).toMatchObject({ command: 'bump', applied: true, game: { bumps: { 'from-form': 1 } } });
    // the game really got it
    const state = (await (await fetch(`http://127.0.0.1:${port}/state`)).json()) as {
      game: { bumps: Record<string, number> };
    };
    expect(state.game.bumps['from-form']).toBe(1);
  });

  test('adds the call it made to the feed', async () => {
    await page.locator('#feed li.call[data-tool="debug.bump"]').waitFor({ timeout: 2000 });
  });
});

test("everything the browser would send another local server (its cookies for 127.0.0.1) gets nothing from the dashboard's API without the page's secret", async () => {
  const { h, port, page } = await launchedAndOpen();
  // the logged-in page works: its screenshot shows and a call reaches the feed
  await page.waitForFunction(
    (p) =>
      (
        document.querySelector(
          `article.card[data-port="${p}"] figure.shot:not([hidden]) img`,
        ) as HTMLImageElement | null
      )?.naturalWidth === 160,
    port,
    { timeout: 10000 },
  );
  expect((await gameCall(h, port, 'bump', { tag: 'replay' })).isError).toBe(false);
  await page.locator('#feed li.call[data-tool="bump"]').waitFor({ timeout: 5000 });
  // A server on any other port of 127.0.0.1 receives every cookie the browser holds for the host
  // (a page sends the browser to it at a path of its choosing, under /dashboard too).
  const daemonPort = daemonFacts(suite.home)!.port;
  const jar = await page.context().cookies(`http://127.0.0.1:${daemonPort + 1}/dashboard/events`);
  const cookie = jar.map((c) => `${c.name}=${c.value}`).join('; ');
  const replay = { host: `127.0.0.1:${daemonPort}`, ...(cookie ? { cookie } : {}) };
  const routes = [
    '/dashboard/events',
    `/dashboard/api/screenshot?port=${port}`,
    `/dashboard/api/toolsets?port=${port}`,
    `/dashboard/api/ui?port=${port}`,
    '/dashboard/api/calls/1',
  ];
  const answers: string[] = [];
  for (const path of routes) answers.push(`${path} ${(await rawRequest(daemonPort, path, replay)).status}`);
  const body = JSON.stringify({ port, name: 'bump', arguments: { tag: 'replayed' } });
  const post = await rawRequest(
    daemonPort,
    '/dashboard/api/call',
    { ...replay, 'content-type': 'application/json' },
    'POST',
    body,
  );
  answers.push(`/dashboard/api/call ${post.status}`);
  expect(answers).toEqual([...routes, '/dashboard/api/call'].map((p) => `${p} 401`));
  // the page keeps its login over a reload, and so do another tab and the spent link opened again,
  // while the daemon runs; another browser (profile) without a key is not logged in and says how to be
  const spent = await dashboardUrl(suite.home);
  await page.goto(spent);
  await page.locator('#conn[data-state="live"]').waitFor({ timeout: 10000 });
  await page.reload();
  await page.locator('#conn[data-state="live"]').waitFor({ timeout: 10000 });
  for (const address of [`http://127.0.0.1:${daemonPort}/dashboard`, spent]) {
    const tab = await page.context().newPage();
    await tab.goto(address);
    await tab.locator('#conn[data-state="live"]').waitFor({ timeout: 10000 });
    await tab.close();
  }
  const other = await (await chromium.browser.newContext()).newPage();
  await other.goto(`http://127.0.0.1:${daemonPort}/dashboard`);
  await other.locator('#conn[data-state="lost"]').waitFor({ timeout: 10000 });
  await expect(other.locator('#daemon').textContent()).resolves.toMatch(/not logged in.*game-bridge-mcp dashboard/);
  await expect(other.locator('main').isHidden()).resolves.toBe(true);
  await other.context().close();
  await page.context().close();
});

test('refusals: no secret, a cookie instead of it, a foreign Origin, a wrong Host, a key used twice or posted by another page, a key without the token', async () => {
  await suite.open(); // starts the daemon
  const url = new URL(await dashboardUrl(suite.home));
  const { port, token } = daemonFacts(suite.home)!;
  const host = `127.0.0.1:${port}`;
  const keyPath = `${url.pathname}${url.search}`;
  const key = url.searchParams.get('key')!;
  const own = `http://127.0.0.1:${port}`;

  // the page and its files are public (they hold nothing secret); the data are not
  expect((await rawRequest(port, '/dashboard', { host })).status).toBe(200);
  expect((await rawRequest(port, '/dashboard/app.js', { host })).status).toBe(200);
  expect((await rawRequest(port, '/dashboard/events', { host })).status).toBe(401);
  expect((await rawRequest(port, '/dashboard/api/calls/1', { host })).status).toBe(401);
  expect((await rawRequest(port, '/dashboard/key', { host }, 'POST')).status).toBe(401);
  expect(
    (
      await rawRequest(
        port,
        '/dashboard/key',
        { host, authorization: `Bearer ${token}`, origin: 'http://evil.example' },
        'POST',
      )
    ).status,
  ).toBe(403);
  // the key URL sets no cookie; the page is served as any other
  const opened = await rawRequest(port, keyPath, { host });
  expect(opened.status).toBe(200);
  expect(opened.headers['set-cookie']).toBeUndefined();
  expect(opened.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  // a key presented from another site, another local page or to another Host is refused (and not spent)
  const json = { 'content-type': 'application/json' };
  const loginBody = JSON.stringify({ key });
  const login = (headers: Record<string, string>) => rawRequest(port, '/dashboard/login', headers, 'POST', loginBody);
  expect((await login({ host, ...json, origin: 'http://evil.example' })).status).toBe(403);
  expect((await login({ host, ...json, origin: `http://127.0.0.1:${port + 1}` })).status).toBe(403);
  expect((await login({ host, ...json })).status).toBe(403); // no Origin: not the page's own script
  expect((await login({ host: `evil.example:${port}`, ...json, origin: own })).status).toBe(403);
  expect((await login({ host: `127.0.0.1:${port + 1}`, ...json, origin: own })).status).toBe(403);

  const answer = await login({ host, ...json, origin: own });
  expect(answer.status).toBe(200);
  expect(answer.headers['set-cookie']).toBeUndefined();
  const { secret, expiresInMs } = JSON.parse(answer.body) as { secret: string; expiresInMs: number };
  expect(expiresInMs).toBe(12 * 60 * 60 * 1000);
  expect((await login({ host, ...json, origin: own })).status).toBe(403); // one time only

  const auth = { 'x-gamebridge-dashboard': secret };
  expect((await rawRequest(port, '/dashboard/events', { host, ...auth })).status).toBe(200);
  expect((await rawRequest(port, '/dashboard/events', { host: `localhost:${port}`, ...auth })).status).toBe(200);
  // the secret as a cookie (what a browser would carry to another server) is worth nothing
  for (const cookie of [`gb_dash_${port}=${secret}`, `x-gamebridge-dashboard=${secret}`])
    expect((await rawRequest(port, '/dashboard/events', { host, cookie })).status).toBe(401);
  expect((await rawRequest(port, '/dashboard/events', { host, 'x-gamebridge-dashboard': `${secret}x` })).status).toBe(
    401,
  );
  // the secret does not help a foreign page or a rebinding DNS name
  expect((await rawRequest(port, '/dashboard/events', { host, ...auth, origin: 'http://evil.example' })).status).toBe(
    403,
  );
  expect((await rawRequest(port, '/dashboard/events', { host: `evil.example:${port}`, ...auth })).status).toBe(403);
  const post = { host, ...auth, origin: 'http://evil.example', ...json };
  expect((await rawRequest(port, '/dashboard/api/call', post, 'POST', '{"port":1,"name":"health"}')).status).toBe(403);
  // An <img> or no-cors fetch from a page on another local port carries no Origin: same-site
  // without our Origin is refused, on every route; the page's own are not.
  for (const path of ['/dashboard/api/screenshot?port=1', '/dashboard/events', '/dashboard/app.js', '/dashboard'])
    expect(`${path} ${(await rawRequest(port, path, { host, ...auth, 'sec-fetch-site': 'same-site' })).status}`).toBe(
      `${path} 403`,
    );
  const shot = await rawRequest(port, '/dashboard/api/screenshot?port=1', {
    host,
    ...auth,
    'sec-fetch-site': 'same-origin',
  });
  expect(shot.status).not.toBe(403);
  expect(shot.headers['x-frame-options']).toBe('DENY');
  expect(shot.headers['cross-origin-resource-policy']).toBe('same-origin');
});

test('`dashboard` says how to get a key (exit 1) when no daemon runs', async () => {
  await expect(dashboardUrl(suite.home)).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringContaining('No daemon is running for'),
  });
});

test('`dashboard` prints a fresh key each time a daemon runs', async () => {
  await suite.open();
  const [a, b] = [await dashboardUrl(suite.home), await dashboardUrl(suite.home)];
  expect(new URL(a).searchParams.get('key')).not.toBe(new URL(b).searchParams.get('key'));
});

describe('`dashboard` with a browser opener', () => {
  const shared = pairSuite('gb-dash-open-', {}, 'describe');
  let key: string;
  let handed: string;

  beforeAll(async () => {
    await shared.open(); // starts the daemon
    // A stand-in opener that records its arguments, where the real one (xdg-open) would run.
    const bin = join(shared.home, 'bin');
    mkdirSync(bin);
    const argsFile = join(shared.home, 'opener-args');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\n`, { mode: 0o755 });
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (typeof v === 'string' && !k.startsWith('GAME_BRIDGE_')) env[k] = v;
    const { stdout } = await run(process.execPath, [CLI, 'dashboard'], {
      env: { ...env, GAME_BRIDGE_HOME: shared.home, DISPLAY: ':99', PATH: `${bin}:${process.env.PATH}` },
    });
    const keyUrl = stdout.trim().split('\n').pop()!;
    key = new URL(keyUrl).searchParams.get('key')!;
    await waitFor('the opener to run', () => existsSync(argsFile), 10_000);
    handed = readFileSync(argsFile, 'utf8').trim();
  }, 60000);

  test("hands the browser a file only you can read, never the key: the opener's command line is useless to others", () => {
    expect(handed).toMatch(/^file:\/\/.*dashboard-open\.html$/);
    expect(handed).not.toContain(key);
    const file = fileURLToPath(handed);
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain(key);
  });

  test('the file it hands the browser logs the browser in', async () => {
    // A browser opening that file lands on the dashboard, logged in, the key gone from its address bar.
    const page = await (await chromium.browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(handed);
    await page.waitForURL((u) => u.pathname === '/dashboard' && u.search === '', { timeout: 15000 });
    await page.locator('#conn[data-state="live"]').waitFor({ timeout: 10000 });
    await page.context().close();
  });
});

describe('two games in turn on one port, the second serving no screenshots, seen at 390 and 1280 px', () => {
  const shared = pairSuite('gb-dash-rows-', {}, 'describe');
  let port: number;
  type Row = { text: string | null; overlaps: boolean; cut: boolean };
  const seen: { width: number; count: number; targets: (string | null)[]; layout: Row[]; complaints: string[] }[] = [];

  beforeAll(async () => {
    const dir = join(shared.home, 'no-shots');
    mkdirSync(dir, { recursive: true });
    port = await freePort();
    writeFileSync(
      join(dir, 'gamebridge.json'),
      JSON.stringify({
        name: 'Crate Stack',
        launch: { command: `node "${EXAMPLE_GAME}" --port {port}`, portRange: String(port), readyTimeoutMs: 30000 },
      }),
    );
    const h = await shared.open(dir);
    const launch = async () => {
      const l = await call(h, 'launch_instance', {}, 60000);
      expect(l.isError ? l.text : 'launched').toBe('launched');
      shared.trackGroup(l.json.pid as number);
    };
    await launch();
    expect((await gameCall(h, port, 'bump', { tag: 'first' })).isError).toBe(false);
    expect((await call(h, 'stop_instance', { port }, 60000)).isError).toBe(false);
    await launch();
    expect((await gameCall(h, port, 'bump', { tag: 'second' })).isError).toBe(false);
    expect((await gameCall(h, port, 'no_such_tool')).isError).toBe(true);

    for (const width of [390, 1280]) {
      const context = await chromium.browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const complaints: string[] = [];
      page.on('console', (m) => m.type() === 'error' && complaints.push(m.text()));
      await page.goto(await dashboardUrl(shared.home));
      await page.locator(`article.card[data-port="${port}"][data-status="live"]`).waitFor({ timeout: 10000 });
      const rows = page.locator('#feed li.call[data-tool="bump"]');
      const count = await rows.count();
      const targets = [
        await rows.nth(0).locator('.target').textContent(),
        await rows.nth(1).locator('.target').textContent(),
      ];
      const layout = await page.evaluate(() =>
        [...document.querySelectorAll('#feed li.call summary')].map((s) => {
          const box = (sel: string) => s.querySelector(sel)?.getBoundingClientRect();
          const parts = ['time', '.tool', '.ms', '.badge', '.who'].map(box).filter((b) => b !== undefined);
          const overlaps = parts.some((a, i) =>
            parts.some(
              (b, j) =>
                i < j && a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1,
            ),
          );
          const cut = ['.tool', '.who'].some((sel) => {
            const el = s.querySelector(sel) as HTMLElement;
            return el.scrollWidth > el.clientWidth + 1;
          });
          return { text: s.textContent, overlaps, cut };
        }),
      );
      // the page asked for a screenshot and learned the game serves none, without a failed load
      await page.waitForTimeout(1500);
      seen.push({ width, count, targets, layout, complaints });
      await context.close();
    }
  }, 180000);

  test('a call row shows its time, tool, client and game whole', () => {
    for (const { width, layout } of seen) {
      // nothing drawn over anything else, and nothing cut: the client's name and the refused tool read whole
      expect([width, layout.filter((r) => r.overlaps || r.cut)]).toEqual([width, []]);
      expect(layout.some((r) => /call_tool › no_such_tool.*CommandRejected/.test(r.text ?? ''))).toBe(true);
    }
  });

  test('a call row names an earlier game on the port', () => {
    for (const { count, targets } of seen) {
      expect(count).toBe(2);
      // newest first: the call to the game running now, then the one to the game before it
      expect(targets).toEqual([`Crate Stack :${port}`, `an earlier game on :${port}`]);
    }
  });

  test('a game with no screenshots logs nothing in the console', () => {
    for (const { complaints } of seen) expect(complaints).toEqual([]);
  });
});
