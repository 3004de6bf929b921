/**
 * filmstrip. Through proxy+daemon on Star Catcher (the Phaser example in Chromium, a 1280×720
 * page), paused in play: `press {input: "left", frames: 16, filmstrip: 8}` against the same 16
 * frames seen as 8 `press {frames: 2}` and `screenshot` calls. What an agent receives (characters of the answer:
 * its text and its images' base64), the PNG bytes, and the wall time of each
 * (`BENCH_ONLY=filmstrip`; `BENCH_FILMSTRIP_PNG=file` keeps the sheet, to look at).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectMcp, DIST, freeRange, now, round, type Mcp, type Reaper } from './harness.js';
import { ms, type BenchConfig, type Measurement } from './types.js';

const TILES = 8;
const FRAMES = 16;

interface Content {
  type: string;
  text?: string;
  data?: string;
}

/** One call's answer as an agent receives it: characters of its text and images, and the images' bytes. */
async function weigh(mcp: Mcp, port: number, name: string, args: Record<string, unknown>) {
  const res = (await mcp.client.callTool({ name: 'call_tool', arguments: { port, name, arguments: args } }, undefined, {
    timeout: 120000,
  })) as { content: Content[]; isError?: boolean };
  if (res.isError) throw new Error(`${name} failed: ${res.content[0]?.text}`);
  const chars = res.content.reduce((n, c) => n + (c.text?.length ?? 0) + (c.data?.length ?? 0), 0);
  const images = res.content.filter((c) => c.type === 'image');
  const pngs = images.map((c) => Buffer.from(c.data!, 'base64'));
  const bytes = pngs.reduce((n, png) => n + png.length, 0);
  // what a model is charged for an image is its pixels
  const pixels = pngs.reduce((n, png) => n + png.readUInt32BE(16) * png.readUInt32BE(20), 0);
  return { chars, bytes, pixels, png: pngs[0] };
}

const weighed = (w: { chars: number; bytes: number; pixels: number }) => ({
  chars: w.chars,
  bytes: w.bytes,
  pixels: w.pixels,
});

export async function measureFilmstrip(r: Reaper, _cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-film-');
  const dir = r.tempDir('gb-bench-filmproj-');
  const [port] = await freeRange(1);
  writeFileSync(
    join(dir, 'gamebridge.json'),
    JSON.stringify({
      name: 'Star Catcher',
      launch: {
        portRange: `${port}-${port}`,
        readyTimeoutMs: 120000,
        web: { static: join(DIST, 'examples', 'phaser-game', 'www') },
      },
    }),
  );
  const mcp = await connectMcp(r, 'proxy', home, [], dir);
  await mcp.call('launch_instance');
  await mcp.call('call_tool', { port, name: 'pause' });
  await mcp.call('call_tool', { port, name: 'start' });
  // warm-up: the first sheet starts ffmpeg from a cold disk cache
  await weigh(mcp, port, 'press', { input: 'right', frames: 2, filmstrip: 2 });
  await weigh(mcp, port, 'screenshot', {});

  let t = now();
  const film = await weigh(mcp, port, 'press', { input: 'left', frames: FRAMES, filmstrip: TILES });
  const filmMs = now() - t;
  if (process.env.BENCH_FILMSTRIP_PNG && film.png) writeFileSync(process.env.BENCH_FILMSTRIP_PNG, film.png);
  const shots = { chars: 0, bytes: 0, pixels: 0 };
  t = now();
  for (let i = 0; i < TILES; i++) {
    const press = await weigh(mcp, port, 'press', { input: 'left', frames: FRAMES / TILES });
    const shot = await weigh(mcp, port, 'screenshot', {});
    shots.chars += press.chars + shot.chars;
    shots.bytes += shot.bytes;
    shots.pixels += shot.pixels;
  }
  const shotsMs = now() - t;
  await mcp.call('stop_instance', { port });
  await mcp.close();

  return {
    name: 'filmstrip',
    figures: {
      filmstrip: { tiles: TILES, frames: FRAMES, ...weighed(film), ms: round(filmMs, 1) },
      screenshots: { calls: TILES * 2, ...weighed(shots), ms: round(shotsMs, 1) },
      charsRatio: round(shots.chars / film.chars, 1),
    },
    rows: [
      {
        id: 'filmstrip',
        what: `press {frames: ${FRAMES}, filmstrip: ${TILES}} on a 1280×720 page: characters of the answer`,
        value: `${film.chars}`,
        reference: `${TILES} press + screenshot pairs: ${shots.chars}`,
        vs: `${round(shots.chars / film.chars, 1)}× fewer`,
        met: null,
      },
      {
        id: 'filmstrip',
        what: 'its PNG bytes',
        value: `${film.bytes}`,
        reference: `${TILES} screenshots: ${shots.bytes}`,
        vs: `${round(shots.bytes / film.bytes, 1)}× fewer`,
        met: null,
      },
      {
        id: 'filmstrip',
        what: 'its pixels',
        value: `${film.pixels}`,
        reference: `${TILES} screenshots: ${shots.pixels}`,
        vs: `${round(shots.pixels / film.pixels, 1)}× fewer`,
        met: null,
      },
      {
        id: 'filmstrip',
        what: 'its wall time, one call',
        value: ms(filmMs, 0),
        reference: `${TILES * 2} calls: ${ms(shotsMs, 0)}`,
        met: null,
      },
    ],
  };
}
