/**
 * The web kit's pointer, touch, axis and text on a real page: the built Star Catcher example
 * (Phaser 4 on the web kit) launched by the real daemon in Debian's Chromium, driven through the
 * SDK client. The game declares the four capabilities, so each input goes to the kit as its
 * reserved command and the kit dispatches it on Phaser's canvas as DOM events: a click or tap on
 * the Play button the screenshot shows reaches Phaser's own input and starts a round; the stick
 * steers the basket by the value given and rests at 0; typed text is the high-score name.
 */
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { decodePng } from './helpers/png.js';
import { cleanedAfterAll, gameCall, type McpHandle, launchWebGame } from './helpers/mcp.js';
import { DIST } from './helpers/procs.js';

jest.setTimeout(180_000);

const cleanup = cleanedAfterAll();
let h: McpHandle;
let port: number;

beforeAll(async () => {
  const web = { static: join(DIST, 'examples', 'phaser-game', 'www') };
  ({ h, port } = await launchWebGame({ prefix: 'gb-webkitin-', name: 'Star Catcher', web, ports: 3, cleanup }));
});

async function ok(name: string, args: Record<string, unknown> = {}) {
  const r = await gameCall(h, port, name, args);
  if (r.isError) throw new Error(r.text);
  return r.json;
}
const state = async () => (await ok('get_state')).state;

/** The centre of the Play button as the screenshot shows it: its gold pixels (no star is on the menu). */
async function playButton(): Promise<[number, number]> {
  const shot = await gameCall(h, port, 'screenshot');
  const png = decodePng(Buffer.from((shot.res.content as any[])[1].data, 'base64'));
  let [sx, sy, n] = [0, 0, 0];
  for (let y = 0; y < png.height; y++)
    for (let x = 0; x < png.width; x++) {
      const i = (y * png.width + x) * png.channels;
      const [r, g, b] = [png.pixels[i], png.pixels[i + 1], png.pixels[i + 2]];
      if (Math.abs(r - 0xff) < 12 && Math.abs(g - 0xc8) < 12 && Math.abs(b - 0x3d) < 12)
        [sx, sy, n] = [sx + x, sy + y, n + 1];
    }
  expect(n).toBeGreaterThan(500);
  return [Math.round(sx / n), Math.round(sy / n)];
}

async function toMenu(): Promise<void> {
  await ok('reset');
  await ok('wait_for', { path: 'ui.screen', equals: 'MenuScreen' });
}

test('the page declares pointer, touch, its steer axis and text, each at rest in its state', async () => {
  expect((await ok('health')).capabilities).toEqual(expect.arrayContaining(['pointer', 'touch', 'axis', 'text']));
  const s = await state();
  expect(s.input).toMatchObject({ axes: { steer: 0 }, pointer: { x: 0, y: 0, buttons: 0 }, touches: [] });
});

test("a pointer click on the Play button the screenshot shows reaches Phaser's input and starts a round", async () => {
  await toMenu();
  const [x, y] = await playButton();
  const r = await ok('pointer', { action: 'click', x, y });
  expect(r).toMatchObject({ via: 'game', frames: 1 });
  await ok('wait_for', { path: 'ui.screen', equals: 'GameScreen', timeoutMs: 10_000 });
  expect((await state()).input.pointer).toEqual({ x, y, buttons: 0 });
});

test("a tap on the Play button reaches Phaser's touch input and starts a round", async () => {
  await toMenu();
  const [x, y] = await playButton();
  expect(await ok('tap', { x, y })).toMatchObject({ via: 'game' });
  await ok('wait_for', { path: 'ui.screen', equals: 'GameScreen', timeoutMs: 10_000 });
  expect((await state()).input.touches).toEqual([]);
});

test('the steer axis moves the basket by the value given each frame and rests at 0 on release', async () => {
  await ok('start');
  await ok('move_to', { x: 400 });
  await ok('pause');
  const r = await ok('set_axis', { input: 'steer', value: -0.5, frames: 5 });
  expect(r).toMatchObject({ via: 'game', frames: 5 });
  let s = await state();
  expect(s.game.basketX).toBe(400 - 5 * 4); // half the basket's 8 pixels a frame
  expect(s.input.axes.steer).toBe(0);
  await ok('set_axis', { input: 'steer', value: 1, ms: 60_000 });
  await ok('step', { frames: 2 });
  s = await state();
  expect(s.game.basketX).toBe(380 + 2 * 8);
  await ok('release', { input: 'steer' });
  await ok('step', { frames: 2 });
  s = await state();
  expect([s.game.basketX, s.input.axes.steer]).toEqual([396, 0]);
  await ok('resume');
});

test('typed text becomes the high-score name', async () => {
  const r = await ok('type', { text: 'Ada 7!' });
  expect(r).toMatchObject({ via: 'game', typed: 6 });
  expect((await state()).game.name).toContain('Ada 7');
});
