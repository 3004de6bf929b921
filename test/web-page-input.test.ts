/**
 * What an agent meets playing a page with keys, the mouse and snapshots, through the real proxy
 * + daemon, the SDK client and Debian's Chromium: a page without the kit (test/fixtures/web-pages
 * hud.html, a canvas game with a HUD line rewritten every frame) and the Star Catcher example
 * (a kit page whose simFrame stands still on its menu). Each test is a defect met once.
 */
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { call, cleanedAfterAll, gameCall, type McpHandle, launchWebGame } from './helpers/mcp.js';
import { DIST, ROOT } from './helpers/procs.js';

jest.setTimeout(180_000);

const PAGES = join(ROOT, 'test', 'fixtures', 'web-pages');
const PHASER_WWW = join(DIST, 'examples', 'phaser-game', 'www');
const cleanup = cleanedAfterAll();
let h: McpHandle;
let port: number;

beforeAll(async () => {
  ({ h, port } = await launchWebGame({
    prefix: 'gb-pageinput-',
    name: 'Hud',
    web: { static: PAGES, url: 'hud.html', kit: false },
    ports: 4,
    timeout: 4000,
    configs: { 'star.json': { name: 'Star Catcher', web: { static: PHASER_WWW } } },
    cleanup,
  }));
});

const diagnostics = async () => (await gameCall(h, port, 'get_state', { path: 'game' })).json.value;

test('a word or an unknown form given as a browser input is a BridgeUsageError naming the inputs a page takes', async () => {
  const word = await gameCall(h, port, 'press', { input: 'hello' });
  expect(word.text).toMatch(/^BridgeUsageError: 'hello' is neither an input the game declares .* a DOM key name/);
  const wheel = await gameCall(h, port, 'hold', { input: 'wheel@1,2', ms: 1000 });
  expect(wheel.text).toMatch(/^BridgeUsageError: 'wheel@1,2' is .*'mouse:left@x,y'/);
});

test('holding the mouse button again at another point moves it there with the button down (a drag)', async () => {
  await gameCall(h, port, 'hold', { input: 'mouse:left@10,10', ms: 5000 });
  const again = await gameCall(h, port, 'hold', { input: 'mouse:left@200,150', ms: 5000 });
  expect(again.json.held).toEqual(['mouse:left@200,150']);
  await gameCall(h, port, 'release', { input: 'mouse:left@200,150' });
  const d = await diagnostics();
  expect(d.down).toEqual([10, 10]);
  expect(d.last).toEqual([200, 150, 1]);
  expect(d.up).toEqual([200, 150]);
});

test("a page's snapshot header shows the game's frame beside the count of snapshots", async () => {
  await gameCall(h, port, 'pause');
  try {
    const frame = (await gameCall(h, port, 'health')).json.frame;
    for (let i = 0; i < 3; i++) {
      const snap = await gameCall(h, port, 'snapshot');
      expect(snap.text.split('\n')[0]).toMatch(new RegExp(`· snapshot \\d+ · frame ${frame}$`));
    }
  } finally {
    await gameCall(h, port, 'resume');
  }
});

test('a text node the page rewrites every frame with the same words keeps its ref, so snapshot {since} answers unchanged', async () => {
  const one = await gameCall(h, port, 'snapshot');
  expect(one.text).toMatch(/- text "Score: 0" \[ref=/);
  await new Promise((r) => setTimeout(r, 200));
  const two = await gameCall(h, port, 'snapshot', { since: one.json.snapshot.revision });
  expect(two.text).toMatch(/^unchanged since ui revision \d+/);
});

test("the canvas's fallback text is not a node of the tree", async () => {
  const snap = await gameCall(h, port, 'snapshot');
  expect(snap.text).not.toContain('support HTML5');
});

test("a key pressed on Star Catcher's menu, where its simFrame stands still, is answered after the page's frames", async () => {
  const star = await call(h, 'launch_instance', { config: 'star.json' }, 120_000);
  if (star.isError) throw new Error(star.text);
  try {
    const s = (await gameCall(h, star.json.port, 'get_state')).json.state;
    expect(s.ui.screen).toBe('MenuScreen');
    const p = await gameCall(h, star.json.port, 'press', { input: 'ArrowLeft', frames: 2 });
    expect(p.isError).toBe(false);
    expect(p.json).toMatchObject({ via: 'browser', input: 'ArrowLeft', frames: 2 });
  } finally {
    await call(h, 'stop_instance', { port: star.json.port });
  }
});

test('a click whose effect the page draws on its next frame is seen by the snapshot right after it', async () => {
  // a slow clock makes the next frame late enough that a snapshot sent at once would beat it
  await gameCall(h, port, 'resume', { speed: 0.05 });
  try {
    const before = await gameCall(h, port, 'snapshot');
    const ref = /- button "Bump" \[ref=(dom-\d+)\]/.exec(before.text)![1];
    const click = await gameCall(h, port, 'click', { ref });
    expect(click.json).toMatchObject({ applied: true, command: 'browser.click' });
    expect((await gameCall(h, port, 'snapshot')).text).toMatch(/- text "Score: 1" \[ref=/);
  } finally {
    await gameCall(h, port, 'resume', { speed: 1 });
  }
});

test('a click on a link that loads another page answers that it was applied', async () => {
  // a slow clock makes the page navigate away before its next frame
  await gameCall(h, port, 'resume', { speed: 0.05 });
  try {
    const before = await gameCall(h, port, 'snapshot');
    const ref = /- link "Again" \[ref=(dom-\d+)\]/.exec(before.text)![1];
    const click = await gameCall(h, port, 'click', { ref });
    expect(click.isError ? click.text : click.json).toMatchObject({ applied: true, command: 'browser.click' });
  } finally {
    await gameCall(h, port, 'resume', { speed: 1 });
  }
});
