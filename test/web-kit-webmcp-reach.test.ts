/**
 * What an agent in the browser reaches through the web kit's WebMCP door, in Debian's Chromium
 * with WebMCP on: a player's reach and no more. A page with a debug command, a held input of a
 * bridge session and a hidden UI group; each call below is what a hostile in-browser caller
 * tried, and each must leave the game as a player would.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { openBrowser, type WebBrowser } from '../daemon/web/browser.js';
import { startPageCarrier, type PageCarrier } from '../daemon/web/carrier.js';
import { serveStatic, type StaticSite } from '../daemon/web/static.js';
import { DIST, removeDir, tempHome } from './helpers/procs.js';

jest.setTimeout(120_000);

const PAGE = `<!doctype html><title>reach</title><script type="module">
import { createGameSurface } from './gamebridge.js';
window.gold = 0;
window.startArgs = [];
const s = createGameSurface({
  name: 'reach', version: '1', inputs: ['left'],
  snapshot: () => ({ player: { gold: window.gold } }),
  commands: {
    start: (a) => { window.startArgs.push({ ...a.raw }); },
    give_gold: () => { window.gold += 1000; },
  },
  ui: () => ({ screen: 'Menu', nodes: [
    { id: 'play', role: 'button', name: 'Play', activate() {} },
    { id: 'cheats', role: 'group', name: 'Cheats', visible: false, children: [
      { id: 'give', role: 'button', name: 'Give gold', activate() { window.gold += 100; } },
    ] },
  ] }),
  manifest: { toolsets: [
    { name: 'play', tools: [
      { name: 'start', description: 'Start a round.', player: true, args: [] },
      { name: 'input.releaseAll', description: 'Let go.', player: true, args: [{ name: 'owner', type: 'string' }] },
    ] },
    { name: 'debug', tools: [{ name: 'give_gold', description: 'Cheat.', args: [] }] },
  ] },
});
s.listen();
(function f() { s.tick(); requestAnimationFrame(f); })();
</script>`;

let dir: string;
let site: StaticSite;
let carrier: PageCarrier;
let browser: WebBrowser;

beforeAll(async () => {
  dir = tempHome('gb-kit-reach-');
  mkdirSync(join(dir, 'www'));
  copyFileSync(join(DIST, 'web', 'gamebridge.js'), join(dir, 'www', 'gamebridge.js'));
  writeFileSync(join(dir, 'www', 'index.html'), PAGE);
  site = await serveStatic({ root: join(dir, 'www') });
  carrier = await startPageCarrier({ port: 0, log: () => undefined });
  browser = await openBrowser({ url: `${site.url}index.html${carrier.fragment}` });
  await carrier.waitForJoin(60_000);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  for (const x of [carrier, site]) await x?.close();
  removeDir(dir);
});

const get = async (path: string): Promise<any> => (await fetch(`http://127.0.0.1:${carrier.port}${path}`)).json();
const call = (name: string, input: Record<string, unknown> = {}) => browser.page.webmcp.callTool(name, input) as any;
const inPage = (expr: string) => browser.page.evaluate(expr) as Promise<any>;

test("a player tool's call cannot name another command: start {cmd: 'give_gold'} starts", async () => {
  const answer = await call('start', { cmd: 'give_gold' });
  expect(answer.structuredContent.ok).toBe(true);
  expect(await inPage('window.gold')).toBe(0);
  expect(await inPage('window.startArgs.length')).toBeGreaterThan(0);
});

test("a player tool's call passes on only the arguments its tool declares", async () => {
  await inPage('window.startArgs = []');
  await call('start', { owner: 'session-A', x: 3 });
  expect(await inPage('window.startArgs')).toEqual([{}]);
});

test("a page caller cannot release a bridge session's held input", async () => {
  const held = await get('/command?cmd=input.hold&input=left&owner=session-A&leaseMs=60000');
  expect(held.accepted).toBe(true);
  await call('start', { cmd: 'input.releaseAll', owner: 'session-A' });
  await call('start');
  expect((await get('/state')).input.held).toEqual([
    { input: 'left', owner: 'session-A', leaseMsLeft: expect.any(Number) },
  ]);
  await get('/command?cmd=input.releaseAll&owner=session-A');
});

test("a manifest tool named like the kit's reserved commands is not registered in the page", async () => {
  const names = (await browser.page.webmcp.tools()).map((t) => t.name).sort();
  expect(names).toEqual(['click', 'press', 'set_value', 'snapshot', 'start']);
});

test("the page's snapshot leaves hidden nodes and what is inside them out", async () => {
  const snap = (await call('snapshot')).structuredContent;
  const ids = JSON.stringify(snap.nodes);
  expect(snap.nodes.map((n: any) => n.id)).toEqual(['play']);
  expect(ids).not.toContain('give');
});

test('a page caller cannot press a hidden node by its id', async () => {
  const answer = await call('click', { ref: 'give' });
  expect(answer.isError).toBe(true);
  expect(await inPage('window.gold')).toBe(0);
});
