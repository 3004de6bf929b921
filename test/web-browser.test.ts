/**
 * Browser games for real: Debian's Chromium driven by playwright-core, the built Phaser example
 * (dist/examples/phaser-game, `npm run build`) served from its static folder, the web kit in
 * the page joining the page carrier, and everything asked from Node over HTTP. One browser for
 * the file (a start costs seconds); each test uses its own carriers and tabs, and the last one
 * checks that nothing of the browser is left.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { openBrowser, type WebBrowser } from '../daemon/web/browser.js';
import { startPageCarrier, type PageCarrier } from '../daemon/web/carrier.js';
import { findChromium } from '../daemon/web/chromium.js';
import { serveStatic, type StaticSite } from '../daemon/web/static.js';
import { decodePng, distinctColours } from './helpers/png.js';
import { DIST, groupExists, listeningPortsOf, waitFor } from './helpers/procs.js';

jest.setTimeout(120_000);

const PHASER_WWW = join(DIST, 'examples', 'phaser-game', 'www');
const CANVAS_WWW = join(DIST, 'examples', 'canvas-game', 'www');
let browser: WebBrowser;
let site: StaticSite;
let carrier: PageCarrier;
const logs: string[] = [];
const extra: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  site = await serveStatic({ root: PHASER_WWW });
  carrier = await startPageCarrier({ port: 0, log: (l) => logs.push(l) });
  browser = await openBrowser({ url: `${site.url}index.html${carrier.fragment}` });
  await carrier.waitForJoin(60_000);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  for (const x of [carrier, site, ...extra]) await x?.close();
});

async function get(path: string, port = carrier.port): Promise<any> {
  const r = await fetch(`http://127.0.0.1:${port}${path}`);
  return r.json();
}

/** Sends a command through the carrier and waits until the page applied it; returns that state. */
async function applied(cmd: string, args: Record<string, string> = {}, port = carrier.port): Promise<any> {
  const r = await get(`/command?${new URLSearchParams({ cmd, ...args })}`, port);
  expect(r).toMatchObject({ accepted: true });
  return waitFor(
    `${cmd} applied`,
    async () => {
      const s = await get('/state', port);
      return s.completedCommandId >= r.commandId ? s : null;
    },
    30_000,
  );
}

test('a joined Phaser page rendered with WebGL answers /health, /tools, /state and /command through the carrier', async () => {
  expect(carrier.page).toMatchObject({
    name: 'Star Catcher',
    version: '1.0.0',
    origin: site.url.replace(/\/$/, ''),
    join: 1,
  });
  expect(await get('/health')).toEqual({
    ok: true,
    frame: expect.any(Number),
    capabilities: ['input', 'pointer', 'touch', 'axis', 'text', 'clock', 'ui', 'world'],
    sessionEpoch: 0,
  });
  const tools = await get('/tools');
  expect(tools.game).toMatchObject({
    name: 'Star Catcher',
    capabilities: ['input', 'pointer', 'touch', 'axis', 'text', 'clock', 'ui', 'world'],
    inputs: ['left', 'right'],
  });
  expect(
    tools.toolsets
      .flatMap((t: any) => t.tools)
      .filter((t: any) => t.readOnly)
      .map((t: any) => t.name),
  ).toEqual(['log_state', 'ping']);
  const before = await get('/state');
  expect(before).toMatchObject({ ui: { screen: 'MenuScreen' }, renderer: 'WebGL', completedCommandId: 0 });
  const started = await applied('start');
  expect(started).toMatchObject({ ui: { screen: 'GameScreen' }, sessionEpoch: 1 });
  expect((await get('/command?cmd=fly')).known).toEqual(
    expect.arrayContaining(['start', 'move_to', 'close', 'input.hold', 'clock.step']),
  );
  expect(browser.consoleErrors()).toEqual([]);
});

test('the web kit steps exactly 5 simulation frames while paused', async () => {
  const paused = await applied('clock.pause');
  const stepped = await applied('clock.step', { frames: '5' });
  expect(stepped.simFrame - paused.simFrame).toBe(5);
  expect(stepped.clock).toEqual({ paused: true, stepFramesLeft: 0 });
  expect((await applied('clock.resume')).clock.paused).toBe(false);
});

test('the web kit holds a leased input through stepped frames until it is released', async () => {
  await applied('clock.pause');
  await applied('move_to', { x: '400' });
  const held = await applied('input.hold', { input: 'left', owner: 'test', leaseMs: '60000' });
  expect(held.input.held).toEqual([{ input: 'left', owner: 'test', leaseMsLeft: expect.any(Number) }]);
  const moved = await applied('clock.step', { frames: '3' });
  expect(moved.game.basketX).toBe(400 - 3 * 8);
  await applied('input.releaseAll', { owner: 'test' });
  const resumed = await applied('clock.resume');
  expect(resumed.clock.paused).toBe(false);
  expect(resumed.input.held).toEqual([]);
});

test('real keyboard events through the browser move the basket and leave nothing held', async () => {
  const start = (await applied('move_to', { x: '200' })).game.basketX;
  await browser.hold('ArrowRight');
  expect(browser.held()).toEqual(['ArrowRight']);
  const moved = await waitFor(
    'basket moves right',
    async () => {
      const s = await get('/state');
      return s.game.basketX >= start + 40 ? s : null;
    },
    30_000,
  );
  await browser.release();
  expect(browser.held()).toEqual([]);
  expect(moved.input.held).toEqual([]); // the browser's keys are not bridge-held inputs
  const settled = (await applied('ping')).game.basketX;
  await new Promise((r) => setTimeout(r, 300));
  expect((await get('/state')).game.basketX).toBe(settled);
});

test('the browser screenshot is a PNG of the 1280×720 viewport, not blank', async () => {
  const png = await browser.screenshot();
  const img = decodePng(png);
  expect([img.width, img.height]).toEqual([1280, 720]);
  expect(distinctColours(img)).toBeGreaterThan(20);
});

test('only the first tab with the right key joins the game', async () => {
  const before = (await get('/health')).frame;
  const context = browser.page.context();
  const second = await context.newPage();
  const wrong = await context.newPage();
  try {
    await second.goto(`${site.url}index.html${carrier.fragment}`);
    await wrong.goto(`${site.url}index.html${carrier.fragment.replace(/key%3D[0-9a-f]/, 'key%3Dz')}`);
    await waitFor(
      'both refusals logged',
      () =>
        logs.some((l) => /another page is already joined/.test(l)) && logs.some((l) => /wrong or missing key/.test(l)),
      30_000,
    );
    expect(carrier.page?.join).toBe(1);
    expect((await get('/health')).frame).toBeGreaterThanOrEqual(before); // still the first page
  } finally {
    await second.close();
    await wrong.close();
  }
});

test('a page of another local site cannot reach the game port, with or without CORS', async () => {
  const other = await serveStatic({ root: CANVAS_WWW });
  extra.push(other);
  const tab = await browser.page.context().newPage();
  try {
    await tab.goto(`${other.url}index.html`);
    const { commandId: a } = await get('/command?cmd=ping');
    const results = await tab.evaluate(async (port) => {
      const url = `http://127.0.0.1:${port}/command?cmd=spawn&x=5`;
      const cors = await fetch(url).then(
        (r) => `status ${r.status}`,
        (e) => `failed: ${e.message}`,
      );
      const noCors = await fetch(url, { mode: 'no-cors' }).then(
        (r) => `opaque ${r.type}`,
        (e) => `failed: ${e.message}`,
      );
      return { cors, noCors };
    }, carrier.port);
    expect(results.cors).toMatch(/^failed/);
    // Neither request reached the game: its next command id follows straight on.
    const { commandId: b } = await get('/command?cmd=ping');
    expect(b).toBe(a + 1);
  } finally {
    await tab.close();
  }
});

test('a reload is a new process: the page rejoins and its frame restarts', async () => {
  await waitFor('frames pass', async () => (await get('/health')).frame > 30, 60_000);
  const old = (await get('/health')).frame;
  await browser.reload();
  const info = await waitFor('rejoined', () => (carrier.page && carrier.page.join === 2 ? carrier.page : null), 60_000);
  expect(info.name).toBe('Star Catcher');
  const fresh = await get('/health');
  expect(fresh.frame).toBeLessThan(old);
  expect(fresh.sessionEpoch).toBe(0);
  expect(logs.join('\n')).toMatch(/page left: the page disconnected/);
});

test('a carrier restarted on the same port and key gets the page back without a reload (frame goes on)', async () => {
  const port = carrier.port;
  const key = carrier.key;
  const before = (await get('/health')).frame;
  await carrier.close();
  carrier = await startPageCarrier({ port, key, log: (l) => logs.push(l) });
  await carrier.waitForJoin(30_000);
  expect((await get('/health')).frame).toBeGreaterThanOrEqual(before);
});

test('mouse and touch reach a plain canvas page as real events', async () => {
  const canvasSite = await serveStatic({ root: CANVAS_WWW });
  extra.push(canvasSite);
  const dot = await startPageCarrier({ port: 0, log: (l) => logs.push(l) });
  extra.push(dot);
  await browser.page.goto(`${canvasSite.url}index.html${dot.fragment}`);
  await dot.waitForJoin(30_000);
  await browser.press('mouse:left@100,80');
  await waitFor(
    'click moved the dot',
    async () => {
      const s = await get('/state', dot.port);
      return s.game.clicks === 1 && s.game.x === 100 && s.game.y === 80;
    },
    30_000,
  );
  await browser.press('tap@300,200');
  await waitFor(
    'tap moved the dot',
    async () => {
      const s = await get('/state', dot.port);
      return s.game.clicks === 2 && s.game.x === 300 && s.game.y === 200;
    },
    30_000,
  );
  await expect(browser.hold('Ctrl+A')).rejects.toMatchObject({
    kind: 'BridgeUsageError',
    message: expect.stringMatching(/^'Ctrl\+A' is not an input/),
  });
});

test('real Chromium sending garbage on the page socket is closed with code 1008 and a log line', async () => {
  const target = await startPageCarrier({ port: 0, log: (l) => logs.push(l) });
  extra.push(target);
  const code = await browser.page.evaluate(
    (url) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url);
        ws.onopen = () => ws.send('{"t":"hello"');
        ws.onclose = (e) => resolve(e.code);
      }),
    target.wsUrl,
  );
  expect(code).toBe(1008);
  expect(logs.join('\n')).toMatch(
    new RegExp(`127\\.0\\.0\\.1:${target.port}: closing the page: it sent garbage \\(text that is not JSON`),
  );
});

test('a page that throws at load is named in consoleErrors, with no DevTools port open and nothing left after close()', async () => {
  await browser.page.goto('data:text/html,<script>throw new Error("boom at load")</script>');
  await waitFor(
    'error collected',
    () => browser.consoleErrors().some((e) => e.includes('uncaught Error: boom at load')),
    10_000,
  );
  const record = browser.record;
  expect(groupExists(record.pid)).toBe(true);
  // Driven over a pipe: nothing of the browser's group listens on any TCP port.
  expect(listeningPortsOf(record.pid)).toEqual([]);
  const args = readFileSync(`/proc/${record.pid}/cmdline`, 'utf8').split('\0');
  expect(args).toContain('--remote-debugging-pipe');
  expect(args.some((a) => a.startsWith('--remote-debugging-port'))).toBe(false);
  await browser.close();
  expect(groupExists(record.pid)).toBe(false);
  expect(existsSync(record.dir)).toBe(false);
});

describe('a page opened while playwright attaches', () => {
  const lines: string[] = [];
  let early: WebBrowser;
  beforeAll(async () => {
    const page =
      '<!doctype html><script>console.error("first thing: no config"); console.log("size", innerWidth, innerHeight);' +
      'throw new Error("boom before any attach")</script>';
    early = await openBrowser({
      url: `data:text/html,${encodeURIComponent(page)}`,
      onConsole: (l) => lines.push(l),
    });
  }, 60_000);
  afterAll(() => early?.close());

  test('has what its first script logs and throws named once', async () => {
    await waitFor('errors collected', () => early.consoleErrors().length >= 2, 10_000);
    await new Promise((r) => setTimeout(r, 300));
    const errors = early.consoleErrors();
    expect(errors.filter((e) => e === 'console.error: first thing: no config')).toHaveLength(1);
    expect(errors.filter((e) => e === 'uncaught Error: boom before any attach')).toHaveLength(1);
    expect(lines).toContain('console.log: size 1280 720');
    expect(lines).toContain('uncaught Error: boom before any attach');
  });

  test('gets the 1280×720 viewport', async () => {
    const png = decodePng(await early.screenshot());
    expect([png.width, png.height]).toEqual([1280, 720]);
  });

  test('leaves no browser process once closed', async () => {
    await early.close();
    expect(groupExists(early.pid)).toBe(false);
  });
});

test('no Chromium: a ChromiumMissing error with the install line', () => {
  let thrown: unknown;
  try {
    findChromium({ PATH: '/nonexistent' });
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toMatchObject({
    kind: 'ChromiumMissing',
    message: expect.stringMatching(/apt-get install -y chromium/),
  });
  expect(() => findChromium({ GAME_BRIDGE_CHROMIUM: '/no/such/chromium', PATH: process.env.PATH })).toThrow(
    /GAME_BRIDGE_CHROMIUM names '\/no\/such\/chromium'/,
  );
});
