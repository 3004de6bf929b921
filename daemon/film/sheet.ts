/**
 * A contact sheet: several frames of a game as one PNG an agent reads at a glance, each tile
 * scaled down to a bounded size and labelled, in order, left to right then top to bottom.
 * ffmpeg does the work (decoding, scaling, the label's type, tiling, encoding): no image code
 * is written here (docs/DECISIONS.md, "A filmstrip is composed by ffmpeg").
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A tile is at most this big (it keeps the frame's shape and is never enlarged). */
export const TILE_BOX = { width: 320, height: 240 };
/** Tiles per row; at most MAX_TILES tiles, so a sheet stays within 4 × 4 tiles. */
export const COLUMNS = 4;
export const MAX_TILES = 16;

export interface Tile {
  png: Buffer;
  label: string;
}

export interface Sheet {
  png: Buffer;
  width: number;
  height: number;
}

/** Thrown when ffmpeg is not on PATH, for the tool to name (shared/errors.ts, FfmpegMissing). */
export class NoFfmpeg extends Error {}

/** Pixels between tiles and around the sheet; the strip above each picture that holds its label. */
export const PAD = 4;
export const LABEL_STRIP = 22;
const BACKDROP = '0x202020';

/** The size of a PNG, read from its header. */
export function pngSize(png: Buffer): { width: number; height: number } {
  return png.length >= 24 ? { width: png.readUInt32BE(16), height: png.readUInt32BE(20) } : { width: 0, height: 0 };
}

/** The tile size for frames of `width` × `height`: within TILE_BOX, its shape kept, even sides (what the scaler wants). */
export function tileSize(width: number, height: number): { width: number; height: number } {
  const s = Math.min(1, TILE_BOX.width / width, TILE_BOX.height / height);
  const even = (n: number) => Math.max(2, 2 * Math.round((n * s) / 2));
  return { width: even(width), height: even(height) };
}

/** ffmpeg's filter graph: each input scaled, a strip above it for its label, then all of them in a row-major grid. */
function graph(tiles: readonly Tile[], size: { width: number; height: number }): string {
  // The label sits in a strip of its own, so it never hides a corner of the picture.
  const label = (text: string) =>
    `pad=${size.width}:${size.height + LABEL_STRIP}:0:${LABEL_STRIP}:color=${BACKDROP},` +
    `drawtext=text='${text.replace(/[^\w .+-]/g, '')}':fontsize=16:fontcolor=white:x=3:y=3`;
  const each = tiles.map((t, i) => `[${i}:v]scale=${size.width}:${size.height}:flags=area,${label(t.label)}[t${i}]`);
  const cols = Math.min(COLUMNS, tiles.length);
  const rows = Math.ceil(tiles.length / cols);
  const all = tiles.map((_, i) => `[t${i}]`).join('');
  return `${each.join(';')};${all}concat=n=${tiles.length}:v=1:a=0,tile=${cols}x${rows}:padding=${PAD}:margin=${PAD}:color=${BACKDROP}[out]`;
}

/** The tiles as one PNG. The frames' own size decides the tile size; all are scaled to it. */
export async function contactSheet(tiles: readonly Tile[]): Promise<Sheet> {
  if (!tiles.length || tiles.length > MAX_TILES) throw new Error(`a contact sheet has 1 to ${MAX_TILES} tiles`);
  const first = pngSize(tiles[0].png);
  const size = tileSize(first.width, first.height);
  const dir = await mkdtemp(join(tmpdir(), 'game-bridge-sheet-'));
  try {
    const files = tiles.map((_, i) => join(dir, `${i}.png`));
    await Promise.all(tiles.map((t, i) => writeFile(files[i], t.png)));
    const args = ['-v', 'error', '-nostdin', ...files.flatMap((f) => ['-i', f])];
    args.push('-filter_complex', graph(tiles, size), '-map', '[out]', '-frames:v', '1');
    args.push('-f', 'image2pipe', '-c:v', 'png', 'pipe:1');
    const png = await ffmpeg(args);
    return { png, ...pngSize(png) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function ffmpeg(args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile('ffmpeg', args, { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if ((err as NodeJS.ErrnoException | null)?.code === 'ENOENT') reject(new NoFfmpeg('ffmpeg is not on PATH'));
      else if (err) reject(new Error(`ffmpeg failed: ${stderr.toString().trim() || err.message}`));
      else resolve(stdout);
    });
  });
}
