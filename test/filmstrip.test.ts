/**
 * Filmstrips: `watch` and the `filmstrip` argument of the tools that let frames pass, through the
 * real proxy and daemon on Crate Stack (the Node kit, with its --screenshot picture), composed by
 * the system's ffmpeg. A sheet is decoded and its tiles compared; its labels are the answer's
 * frame list. A game that gives no pictures is refused before anything is sent.
 */
import { execFileSync } from 'node:child_process';
import { gameCall, type McpHandle } from './helpers/mcp.js';
import { pairSuite } from './helpers/pair.js';
import { decodePng, type DecodedPng } from './helpers/png.js';
import { freeRange } from './helpers/ports.js';
import { startExampleGame } from './helpers/procs.js';

const hasFfmpeg = (() => {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasFfmpeg && process.env.CI === 'true') throw new Error('ffmpeg is missing, and CI must run the filmstrip tests');
const maybe = hasFfmpeg ? describe : describe.skip;
if (!hasFfmpeg) console.warn('skipping the filmstrip tests: ffmpeg is not on PATH');

/**
 * Crate Stack's picture is 160 × 256; a tile keeps that shape within 320 × 240, under a strip of
 * 22 pixels for its label, and the sheet pads 4 pixels.
 */
const TILE = { width: 150, height: 240 };
const STRIP = 22;
const PAD = 4;

/** The picture of tile `i` (row-major, `cols` a row) of a decoded sheet, without its label, as its pixel bytes. */
function tile(sheet: DecodedPng, i: number, cols: number): Buffer {
  const x0 = PAD + (i % cols) * (TILE.width + PAD);
  const y0 = PAD + Math.floor(i / cols) * (TILE.height + STRIP + PAD) + STRIP;
  const rows: Buffer[] = [];
  for (let y = y0; y < y0 + TILE.height; y++) {
    const at = (y * sheet.width + x0) * sheet.channels;
    rows.push(sheet.pixels.subarray(at, at + TILE.width * sheet.channels));
  }
  return Buffer.concat(rows);
}

function sheetOf(r: { res: { content: Array<{ type: string; data?: string }> } }): DecodedPng {
  const images = r.res.content.filter((c) => c.type === 'image');
  expect(images).toHaveLength(1);
  return decodePng(Buffer.from(images[0].data!, 'base64'));
}

maybe('filmstrips on Crate Stack', () => {
  const suite = pairSuite('gb-film-', {}, 'describe');
  let shots: number, blind: number;
  let h: McpHandle;

  beforeAll(async () => {
    [shots, blind] = await freeRange(2);
    await Promise.all([
      startExampleGame(suite.reaper, shots, ['--screenshot'], { GAME_BRIDGE_HOME: suite.home }),
      startExampleGame(suite.reaper, blind, [], { GAME_BRIDGE_HOME: suite.home }),
    ]);
    h = await suite.open();
  }, 60000);

  async function ok(port: number, name: string, args: Record<string, unknown> = {}) {
    const r = await gameCall(h, port, name, args, 60000);
    if (r.isError) throw new Error(r.text);
    return r;
  }

  /** A fresh paused round on a fixed seed, its simFrame. */
  async function pausedRound(port: number): Promise<number> {
    await ok(port, 'set_seed', { seed: 'film' });
    await ok(port, 'restart');
    await ok(port, 'bridge.pause');
    return (await ok(port, 'get_state')).json.state.simFrame as number;
  }

  test('watch on a paused game answers with 8 different frames, labelled in order', async () => {
    const from = await pausedRound(shots);
    // Held on the paused clock, the input moves the dropper on every frame the watch steps.
    await ok(shots, 'hold', { input: 'right', ms: 60000 });
    const r = await ok(shots, 'watch', { frames: 8 });
    await ok(shots, 'release');
    expect(r.json).toMatchObject({ watched: 8, every: 1, paused: true, frame: expect.any(Number) });
    expect(r.json.filmstrip).toMatchObject({ path: 'simFrame', mimeType: 'image/png' });
    expect(r.json.filmstrip.frames).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => from + n));
    const sheet = sheetOf(r);
    expect([sheet.width, sheet.height]).toEqual([PAD + 4 * (TILE.width + PAD), PAD + 2 * (TILE.height + STRIP + PAD)]);
    expect(r.json.filmstrip).toMatchObject({ width: sheet.width, height: sheet.height });
    const tiles = Array.from({ length: 8 }, (_, i) => tile(sheet, i, 4).toString('base64'));
    expect(new Set(tiles).size).toBe(8);
  });

  test('press with filmstrip 4 adds four evenly spaced frames of the held input, the last the frame after', async () => {
    const from = await pausedRound(shots);
    const r = await ok(shots, 'press', { input: 'right', frames: 8, filmstrip: 4 });
    expect(r.json.filmstrip.frames).toEqual([2, 4, 6, 8].map((n) => from + n));
    expect((await ok(shots, 'get_state')).json.state.simFrame).toBe(from + 8);
    const sheet = sheetOf(r);
    const tiles = Array.from({ length: 4 }, (_, i) => tile(sheet, i, 4).toString('base64'));
    expect(new Set(tiles).size).toBe(4);
  });

  test('a press without filmstrip answers with no image', async () => {
    await pausedRound(shots);
    const r = await ok(shots, 'press', { input: 'right', frames: 2 });
    expect(r.json.filmstrip).toBeUndefined();
    expect(r.res.content.filter((c) => c.type === 'image')).toHaveLength(0);
  });

  test('watch on a game that gives no pictures is CapabilityMissing naming screenshot, and no frame passes', async () => {
    const from = await pausedRound(blind);
    const r = await gameCall(h, blind, 'watch', { frames: 4 });
    expect(r.isError).toBe(true);
    expect(r.json).toMatchObject({ kind: 'CapabilityMissing', capability: 'screenshot', tool: 'watch' });
    expect(r.text).toMatch(/^CapabilityMissing: .*GET \/screenshot/);
    expect((await ok(blind, 'get_state')).json.state.simFrame).toBe(from);
  });

  test('press with a filmstrip on a game that gives no pictures is refused before the input is pressed', async () => {
    const from = await pausedRound(blind);
    const x = (await ok(blind, 'get_state')).json.state.game.dropperX;
    const r = await gameCall(h, blind, 'press', { input: 'right', frames: 4, filmstrip: 2 });
    expect(r.json).toMatchObject({ kind: 'CapabilityMissing', capability: 'screenshot', tool: 'press' });
    const s = (await ok(blind, 'get_state')).json.state;
    expect([s.simFrame, s.game.dropperX]).toEqual([from, x]);
  });
});
