/**
 * A browser page's UI tree without game code, through the real proxy + daemon, the SDK client and
 * Debian's Chromium: a DOM page on the web kit (test/fixtures/dom-page) whose kit knows nothing of
 * its buttons. snapshot reads Chromium's accessibility tree (roles, names, values, states, boxes)
 * with refs that stay while the element lives; click is a real mouse click at the node's box;
 * set_value a real fill, choice and check; a disabled node is refused before anything happens.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { DIST, ROOT, removeDir, stopDaemon, tempHome } from './helpers/procs.js';

jest.setTimeout(180_000);

let home: string;
let h: McpHandle;
let port: number;

beforeAll(async () => {
  home = tempHome('gb-webtree-');
  const project = join(home, 'project');
  mkdirSync(join(project, 'www'), { recursive: true });
  copyFileSync(join(ROOT, 'test', 'fixtures', 'dom-page', 'index.html'), join(project, 'www', 'index.html'));
  copyFileSync(join(DIST, 'web', 'gamebridge.js'), join(project, 'www', 'gamebridge.js'));
  const [first] = await freeRange(2);
  writeFileSync(
    join(project, 'gamebridge.json'),
    JSON.stringify({
      name: 'Shop',
      launch: { portRange: `${first}-${first + 1}`, readyTimeoutMs: 90_000, web: { static: 'www' } },
    }),
  );
  h = await connect({ env: { GAME_BRIDGE_HOME: home }, cwd: project, args: ['--no-scan', '--timeout', '10000'] });
  const launched = await call(h, 'launch_instance', {}, 120_000);
  expect(launched.isError).toBe(false);
  port = launched.json.port;
});

afterAll(async () => {
  await h?.close();
  stopDaemon(home);
  removeDir(home);
});

const refOf = (text: string, line: RegExp) => {
  const m = text.split('\n').find((l) => line.test(l));
  return m ? /\[ref=(dom-\d+)\]/.exec(m)![1] : undefined;
};
const game = async () => (await gameCall(h, port, 'get_state', { path: 'game' })).json.value;

test('snapshot of a DOM page: roles, names, states and boxes from the browser, refs stable', async () => {
  const r = await gameCall(h, port, 'snapshot');
  expect(r.isError).toBe(false);
  const text = r.text;
  expect(text.split('\n')[0]).toMatch(/^Shop · ui revision \d+ · snapshot \d+ · frame \d+$/);
  expect(text).toMatch(/- heading "Shop" \[ref=dom-\d+\]/);
  expect(text).toMatch(/- button "Buy sword" \[ref=dom-\d+\]/);
  expect(text).toMatch(/- button "Sell" \[ref=dom-\d+\] disabled/);
  expect(text).toMatch(/- textbox "Name" \[ref=dom-\d+\]/);
  expect(text).toMatch(/- combobox "Colour" \[ref=dom-\d+\]/);
  expect(text).toMatch(/- checkbox "Agree" \[ref=dom-\d+\] unchecked/);
  expect(text).not.toContain('Secret');
  const buy = r.json.nodes.find((n: any) => n.name === 'Buy sword');
  expect(buy.rect).toEqual([expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number)]);
  expect(buy.rect[2]).toBeGreaterThan(10);
  const again = await gameCall(h, port, 'snapshot', { since: r.json.snapshot.revision });
  expect(again.text).toMatch(/^unchanged since ui revision \d+/);
  expect(refOf((await gameCall(h, port, 'snapshot')).text, /Buy sword/)).toBe(buy.id);
});

test("click and set_value act as a person would: a mouse click at the node's box, filling, choosing and checking", async () => {
  const snap = (await gameCall(h, port, 'snapshot')).text;
  const buy = refOf(snap, /Buy sword/)!;
  const r = await gameCall(h, port, 'click', { ref: buy });
  expect(r.isError).toBe(false);
  expect(r.json).toMatchObject({ ref: buy, command: 'browser.click', applied: true, confirmation: 'browser' });
  const g = await game();
  expect(g.bought).toBe(1);
  expect(g.lastClick.trusted).toBe(true);
  const box = (await gameCall(h, port, 'snapshot', { name: 'Buy sword' })).json.nodes[0].rect;
  expect(Math.abs(g.lastClick.x - (box[0] + box[2] / 2))).toBeLessThanOrEqual(1);
  expect((await gameCall(h, port, 'snapshot')).text).toContain('- text "Bought 1"');

  await gameCall(h, port, 'set_value', { ref: refOf(snap, /textbox "Name"/)!, value: 'Ada' });
  await gameCall(h, port, 'set_value', { ref: refOf(snap, /combobox "Colour"/)!, value: 'Green' });
  await gameCall(h, port, 'set_value', { ref: refOf(snap, /checkbox "Agree"/)!, value: true });
  expect(await game()).toMatchObject({ name: 'Ada', colour: 'Green', agree: true });
  const bad = await gameCall(h, port, 'set_value', { ref: refOf(snap, /combobox "Colour"/)!, value: 'Blue' });
  expect(bad.text).toMatch(/no option "Blue"; options: Red, Green/);
});

const gold = (text: string) => /- text "gold coins" \[ref=(ax-[^\]]+)\]/.exec(text)?.[1];

test('generated content (CSS content:) keeps its ref from one snapshot to the next', async () => {
  const before = (await gameCall(h, port, 'snapshot')).text;
  const first = gold(before);
  expect(first).toBeDefined();
  // the page changes between the two looks (a purchase rewrites the status line)
  await gameCall(h, port, 'click', { ref: refOf(before, /Buy sword/)! });
  expect(gold((await gameCall(h, port, 'snapshot')).text)).toBe(first);
});

test('generated content (CSS content:) is read-only', async () => {
  const ref = gold((await gameCall(h, port, 'snapshot')).text);
  expect(ref).toBeDefined();
  expect((await gameCall(h, port, 'click', { ref: ref! })).isError).toBe(true);
});

test('a disabled element is refused before anything is done', async () => {
  const snap = (await gameCall(h, port, 'snapshot')).text;
  const r = await gameCall(h, port, 'click', { ref: refOf(snap, /button "Sell"/)! });
  expect(r.text).toMatch(/^BridgeUsageError: click: button "Sell" \[ref=dom-\d+\] is disabled/);
});

test("a node the page's kit publishes for its canvas sits in the same tree, its kit id its ref", async () => {
  const r = await gameCall(h, port, 'snapshot');
  expect(r.text).toMatch(/- button "Buy sword" \[ref=dom-\d+\]/);
  expect(r.text).toContain('- button "Play on the board" [ref=board-play]');
  const board = r.json.nodes.find((n: any) => n.id === 'board-play');
  expect(board.rect[2]).toBe(200);
});

test("a click on a node the page's kit publishes reaches the kit", async () => {
  const click = await gameCall(h, port, 'click', { ref: 'board-play' });
  expect(click.json).toMatchObject({ ref: 'board-play', command: 'ui.activate', applied: true });
  expect((await game()).played).toBe(1);
});

test("the ui resource is the tree snapshot reads: the browser's nodes and the kit's", async () => {
  const res = await h.client.readResource({ uri: `gamebridge://game/${port}/ui` });
  const tree = JSON.parse((res.contents[0] as { text: string }).text);
  const names = JSON.stringify(tree.nodes);
  expect(names).toContain('"name":"Buy sword"');
  expect(names).toContain('"id":"board-play"');
});
