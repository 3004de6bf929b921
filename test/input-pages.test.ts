/**
 * The pointer, touch and text tools on a page without the kit (docs/BROWSER.md), through the
 * real proxy + daemon, the SDK client and Debian's Chromium: real events at the screenshot's
 * pixels reach a canvas handler, a drag on a paused page moves once a frame, taps, swipes,
 * pinches and the wheel arrive, and typed text reaches a focused field and the key handler.
 */
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { decodePng } from './helpers/png.js';
import { cleanedAfterAll, gameCall, type McpHandle, launchWebGame } from './helpers/mcp.js';
import { ROOT } from './helpers/procs.js';

jest.setTimeout(180_000);

const cleanup = cleanedAfterAll();
let h: McpHandle;
let port: number;

beforeAll(async () => {
  const web = { kit: false, static: join(ROOT, 'test', 'fixtures', 'web-pages'), url: 'pointer.html' };
  ({ h, port } = await launchWebGame({ prefix: 'gb-inpages-', name: 'pointer', web, cleanup }));
});

async function ok(name: string, args: Record<string, unknown> = {}) {
  const r = await gameCall(h, port, name, args);
  if (r.isError) throw new Error(r.text);
  return r.json;
}
const game = async () => (await ok('get_state')).state.game;

test('a pointer click at the red square the screenshot shows lands on it in the canvas handler', async () => {
  const shot = await gameCall(h, port, 'screenshot');
  const png = decodePng(Buffer.from((shot.res.content as any[])[1].data, 'base64'));
  let [sx, sy, n] = [0, 0, 0];
  for (let y = 0; y < png.height; y++)
    for (let x = 0; x < png.width; x++) {
      const i = (y * png.width + x) * png.channels;
      if (png.pixels[i] > 200 && png.pixels[i + 1] < 50 && png.pixels[i + 2] < 50)
        [sx, sy, n] = [sx + x, sy + y, n + 1];
    }
  expect(n).toBeGreaterThan(100);
  const [x, y] = [Math.round(sx / n), Math.round(sy / n)];
  const r = await ok('pointer', { action: 'click', x, y });
  expect(r).toMatchObject({ via: 'browser', grid: { width: png.width, height: png.height } });
  const g = await game();
  expect(g.hit).toBe(true);
  expect(g.downs.at(-1).slice(0, 3)).toEqual([x, y, 0]);
});

test('a drag of 10 frames on a paused page moves once a frame and ends at its last point', async () => {
  await ok('pause');
  const f0 = (await game()).frame;
  const r = await ok('pointer', { action: 'drag', path: [[10, 10]], x: 110, y: 10, frames: 10 });
  expect(r).toMatchObject({ frames: 11, via: 'browser' });
  const g = await game();
  expect(g.frame).toBe(f0 + 11);
  const moves = g.moves.slice(-10);
  // one move a frame, on consecutive frames, the last where the button lifts
  const at = moves.map((m: number[]) => m[2]);
  expect(at).toEqual(Array.from({ length: 10 }, (_, i) => at[0] + i));
  expect(moves.at(-1).slice(0, 2)).toEqual([110, 10]);
  expect(g.ups.at(-1)).toEqual([110, 10, at.at(-1)]);
  await ok('resume');
});

test('double click, wheel, tap, swipe and pinch reach the canvas as real events', async () => {
  await ok('pointer', { action: 'click', x: 50, y: 50, count: 2 });
  await ok('wheel', { x: 50, y: 50, dy: 120 });
  await ok('tap', { x: 30, y: 40 });
  await ok('pinch', { x: 200, y: 100, from: 40, to: 120, frames: 4 });
  const g = await game();
  expect(g.dbl).toBe(1);
  expect(g.wheel.at(-1)).toEqual([0, 120]);
  expect(g.touches[0]).toEqual(['touchstart', [[0, 30, 40]]]);
  expect(g.touches).toContainEqual([
    'touchmove',
    [
      [0, 140, 100],
      [1, 260, 100],
    ],
  ]);
  expect(g.touches.at(-1)).toEqual(['touchend', []]);
});

describe('typed text after a click in the name field', () => {
  let g: any;
  beforeAll(async () => {
    await ok('pointer', { action: 'click', x: 430, y: 15 });
    await ok('type', { text: 'Ada' });
    g = await game();
  });

  test('goes into the focused field', () => {
    expect(g.name).toBe('Ada');
  });

  test('reaches a canvas key handler key by key', () => {
    expect(g.keys.endsWith('Ada')).toBe(true);
  });
});

test('an axis on a page without the kit is CapabilityMissing', async () => {
  const r = await gameCall(h, port, 'set_axis', { input: 'steer', value: 1, frames: 1 });
  expect(r.text).toMatch(/^CapabilityMissing: /);
});
