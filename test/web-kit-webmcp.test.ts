/**
 * The web kit's WebMCP door, in Debian's Chromium with WebMCP on (as the daemon opens it): the
 * built Star Catcher example registers its player tools in the page, an agent in the browser
 * calls them (playwright-core's page.webmcp, as Playwright MCP does), each call is applied on
 * the game's tick and answered with its command id and the player's state after it; debug tools
 * are not there, the option `webmcp: false` turns the door off, and the bridge lists a kit page's
 * exported tools once, as the manifest's own.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { normaliseManifest } from '../daemon/bridge/index.js';
import { withPageTools } from '../daemon/bridge/webmcp-toolset.js';
import { openBrowser, type WebBrowser } from '../daemon/web/browser.js';
import { startPageCarrier, type PageCarrier } from '../daemon/web/carrier.js';
import { serveStatic, type StaticSite } from '../daemon/web/static.js';
import { DIST, removeDir, tempHome, waitFor } from './helpers/procs.js';

jest.setTimeout(120_000);

const PHASER_WWW = join(DIST, 'examples', 'phaser-game', 'www');
let browser: WebBrowser;
let site: StaticSite;
let carrier: PageCarrier;
const closing: { close(): Promise<void> }[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  site = await serveStatic({ root: PHASER_WWW });
  carrier = await startPageCarrier({ port: 0, log: () => undefined });
  browser = await openBrowser({ url: `${site.url}index.html${carrier.fragment}` });
  await carrier.waitForJoin(60_000);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  for (const x of [carrier, site, ...closing]) await x?.close();
  dirs.forEach(removeDir);
});

const get = async (path: string): Promise<any> => (await fetch(`http://127.0.0.1:${carrier.port}${path}`)).json();
const call = (name: string, input: Record<string, unknown> = {}) => browser.page.webmcp.callTool(name, input) as any;

test('the example registers no debug tool', async () => {
  const names = (await browser.page.webmcp.tools()).map((t) => t.name);
  for (const debug of ['spawn', 'set_seed', 'log_state', 'ping', 'close', 'get_state'])
    expect(names).not.toContain(debug);
});

test("the example registers its player tools and the player's UI tools", async () => {
  const tools = await browser.page.webmcp.tools();
  const names = tools.map((t) => t.name).sort();
  expect(names).toEqual(['click', 'move_to', 'press', 'reset', 'set_value', 'snapshot', 'start']);
  expect(tools.find((t) => t.name === 'move_to')).toMatchObject({
    inputSchema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
  });
  expect(tools.find((t) => t.name === 'snapshot')?.annotations?.readOnly).toBe(true);
});

test("a page-side call is applied on the game's tick and answered with its command id and the player's state", async () => {
  const started = await call('start');
  const id = started.structuredContent.commandId;
  expect(started.structuredContent).toMatchObject({ ok: true, state: { player: { screen: 'GameScreen' } } });
  const moved = await call('move_to', { x: 300 });
  expect(moved.structuredContent.commandId).toBe(id + 1);
  expect(moved.structuredContent.state.player.basketX).toBeGreaterThan(250);
  expect(moved.structuredContent.state.game).toBeUndefined();
  const state = await get('/state');
  expect(state.completedCommandId).toBeGreaterThanOrEqual(id + 1);
  expect(state.commandResults).toEqual(expect.arrayContaining([{ id: id + 1, ok: true }]));
});

test("a page-side call the game fails on its tick is an error result with the game's words and its command id", async () => {
  await call('reset');
  const failed = await call('move_to', { x: 100 });
  expect(failed).toMatchObject({
    isError: true,
    content: [{ type: 'text', text: expect.stringMatching(/^no round is running/) }],
    structuredContent: { ok: false, commandId: expect.any(Number) },
  });
  const state = await get('/state');
  expect(state.commandResults).toEqual(
    expect.arrayContaining([
      { id: failed.structuredContent.commandId, ok: false, error: expect.stringMatching(/no round is running/) },
    ]),
  );
});

test("the page's snapshot and click by ref play the menu as a player does", async () => {
  const snap = (await call('snapshot')).structuredContent;
  expect(snap.screen).toBe('MenuScreen');
  const play = snap.nodes.flatMap((n: any) => [n, ...(n.children ?? [])]).find((n: any) => n.name === 'Play');
  expect((await call('click', { ref: play.id })).structuredContent.state.player.screen).toBe('GameScreen');
});

test("a page caller's press holds an input owned by the page, which lets go when its lease ends", async () => {
  const pressed = await call('press', { input: 'left', ms: 2000 });
  expect(pressed.structuredContent.ok).toBe(true);
  expect((await get('/state')).input.held).toEqual([
    { input: 'left', owner: 'webmcp-page', leaseMsLeft: expect.any(Number) },
  ]);
  await waitFor('the hold ends', async () => ((await get('/state')).input.held.length === 0 ? true : null), 10_000);
});

test("the bridge lists a kit page's exported tools once, as the manifest's own", async () => {
  const tools = await browser.tools.list();
  expect(tools.map((t) => t.name)).toContain('move_to');
  const merged = withPageTools(normaliseManifest(await get('/tools')), tools);
  expect(merged.toolsets.map((t) => t.name)).not.toContain('webmcp');
});

test('a page whose kit is given webmcp: false registers nothing', async () => {
  const dir = tempHome('gb-kit-nowebmcp-');
  dirs.push(dir);
  mkdirSync(join(dir, 'www'));
  copyFileSync(join(DIST, 'web', 'gamebridge.js'), join(dir, 'www', 'gamebridge.js'));
  const page = (webmcp: boolean) => `<!doctype html><title>t</title><script type="module">
import { createGameSurface } from './gamebridge.js';
const s = createGameSurface({ name: 't', version: '1', webmcp: ${webmcp}, snapshot: () => ({}), commands: { go: () => {} },
  manifest: { toolsets: [{ name: 'play', tools: [{ name: 'go', player: true, args: [] }] }] } });
(function f() { s.tick(); requestAnimationFrame(f); })();
window.ready = true;
</script>`;
  writeFileSync(join(dir, 'www', 'off.html'), page(false));
  writeFileSync(join(dir, 'www', 'on.html'), page(true));
  const s2 = await serveStatic({ root: join(dir, 'www') });
  closing.push(s2);
  const tab = await browser.page.context().newPage();
  closing.push({ close: () => tab.close() });
  for (const [file, expected] of [
    ['on.html', ['go']],
    ['off.html', []],
  ] as const) {
    await tab.goto(`${s2.url}${file}`);
    await tab.waitForFunction('window.ready === true');
    expect((await tab.webmcp.tools()).map((t) => t.name)).toEqual(expected);
  }
});
