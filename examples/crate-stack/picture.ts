/**
 * Crate Stack's screenshot (GET /screenshot with --screenshot): the stack drawn as a small PNG,
 * the way a real game would hand over its framebuffer. Encoded with pngjs.
 */
import { PNG } from 'pngjs';
import { KINDS, MAX_HEIGHT, WORLD_WIDTH, type CrateKind, type CrateStack } from './game.js';

const SCALE = 1.6;
const WIDTH = Math.round(WORLD_WIDTH * SCALE);
/** the world up to a little above the height limit, plus the dropper's strip */
const VIEW_HEIGHT = MAX_HEIGHT + 10;
const HEIGHT = Math.round(VIEW_HEIGHT * SCALE);

type Rgb = [number, number, number];
const SKY_TOP: Rgb = [28, 36, 62];
const SKY_BOTTOM: Rgb = [58, 84, 132];
const FLOOR: Rgb = [62, 48, 38];
const LIMIT: Rgb = [214, 84, 84];
const DROPPER: Rgb = [250, 214, 92];
const COLOURS: Record<CrateKind, Rgb> = { small: [218, 160, 84], wide: [120, 190, 120], tall: [112, 156, 226] };

/** The current picture of `game` as PNG bytes. */
export function renderPicture(game: CrateStack): Buffer {
  const png = new PNG({ width: WIDTH, height: HEIGHT });
  for (let y = 0; y < HEIGHT; y++) {
    const t = y / HEIGHT;
    fill(png, 0, y, WIDTH, 1, SKY_TOP.map((c, i) => Math.round(c + (SKY_BOTTOM[i] - c) * t)) as Rgb);
  }
  // the height limit, dashed
  const limitY = toPx(MAX_HEIGHT);
  for (let x = 0; x < WIDTH; x += 8) fill(png, x, limitY, 4, 1, LIMIT);
  for (const c of game.crates) {
    const k = KINDS[c.kind];
    const left = Math.round((c.x - k.w / 2) * SCALE);
    const top = toPx(c.y + k.h);
    const w = Math.round(k.w * SCALE);
    const h = Math.round(k.h * SCALE);
    fill(png, left, top, w, h, shade(COLOURS[c.kind], 0.55));
    fill(png, left + 1, top + 1, w - 2, h - 2, c.settled ? COLOURS[c.kind] : shade(COLOURS[c.kind], 1.2));
  }
  fill(png, 0, HEIGHT - 2, WIDTH, 2, FLOOR);
  const dx = Math.round(game.dropperX * SCALE);
  fill(png, dx - 3, 1, 7, 3, DROPPER);
  return PNG.sync.write(png);
}

/** World y (0 = floor) → pixel row. */
function toPx(worldY: number): number {
  return Math.round((VIEW_HEIGHT - worldY) * SCALE);
}

function shade(c: Rgb, f: number): Rgb {
  return c.map((v) => Math.max(0, Math.min(255, Math.round(v * f)))) as Rgb;
}

/** An opaque rectangle, clipped to the picture. */
function fill(png: PNG, x0: number, y0: number, w: number, h: number, [r, g, b]: Rgb): void {
  for (let y = Math.max(0, y0); y < Math.min(png.height, y0 + h); y++) {
    for (let x = Math.max(0, x0); x < Math.min(png.width, x0 + w); x++) {
      const i = (y * png.width + x) * 4;
      png.data[i] = r;
      png.data[i + 1] = g;
      png.data[i + 2] = b;
      png.data[i + 3] = 255;
    }
  }
}
