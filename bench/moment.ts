/**
 * Back to a moment (docs/TOOLS.md, "rewind"): the wall time of launch_instance {restart, to:
 * "here"} after a minute of play (3,600 frames, 100 inputs) as a ratio to the game time it
 * replays, on the Node kit (Crate Stack), pygame (Frog Hop) and a page without the kit (Dot). The
 * play is paused-clock play, an input every 36 frames with a step between, as an agent plays.
 */
import { join, resolve } from 'node:path';
import { connectMcp, crateStackProject, DIST, freeRange, log, now, round, type Reaper } from './harness.js';
import type { BenchConfig, Measurement, Row } from './types.js';

const EXAMPLES = resolve(DIST, '..', 'examples');

interface Game {
  name: string;
  /** the project folder a client starts in */
  cwd: (home: string, ports: number[]) => string;
  /** the calls before the play: a menu's start */
  prep: Array<[string, Record<string, unknown>]>;
  inputs: [string, string];
}

const GAMES: Game[] = [
  { name: 'Node kit (Crate Stack)', cwd: crateStackProject, prep: [['start', {}]], inputs: ['left', 'right'] },
  {
    name: 'pygame (Frog Hop)',
    cwd: () => join(EXAMPLES, 'pygame-game'),
    prep: [['start', {}]],
    inputs: ['left', 'right'],
  },
  {
    name: 'page, no kit (Dot)',
    cwd: () => join(EXAMPLES, 'canvas-game'),
    prep: [],
    inputs: ['ArrowLeft', 'ArrowRight'],
  },
];

async function one(r: Reaper, g: Game, inputs: number): Promise<Record<string, number | string | null>> {
  const home = r.home('gb-bench-moment-');
  const mcp = await connectMcp(r, 'proxy', home, [], g.cwd(home, await freeRange(4)));
  try {
    const port = (await mcp.call('launch_instance', { paused: true })).port as number;
    const game = (name: string, args: Record<string, unknown>) =>
      mcp.call('call_tool', { port, name, arguments: args });
    for (const [name, args] of g.prep) await game(name, args);
    for (let i = 0; i < inputs; i++) {
      await game('press', { input: g.inputs[i % 2], frames: 6 });
      await game('step', { frames: 30 });
    }
    const t = now();
    const a = await mcp.call('launch_instance', { restart: port, to: 'here' });
    const wallMs = now() - t;
    const gameMs = ((a.frame as number) / 60) * 1000;
    await mcp.call('stop_instance', { port });
    return {
      frames: a.frame as number,
      calls: a.replayed.calls as number,
      wallMs: round(wallMs),
      gameMs: round(gameMs),
      ratio: round(wallMs / gameMs, 3),
      parting: a.parting ? (a.parting.path as string) : null,
    };
  } finally {
    await mcp.close();
  }
}

export async function measureMoment(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const inputs = cfg.quick ? 20 : 100;
  const figures: Record<string, unknown> = {};
  const rows: Row[] = [];
  for (const g of GAMES) {
    try {
      const f = await one(r, g, inputs);
      figures[g.name] = f;
      rows.push({
        id: '28 moment',
        what: `restart {to: "here"} after ${f.frames} frames and ${inputs} inputs, ${g.name}, wall / game time`,
        value: `${f.wallMs} ms / ${f.gameMs} ms`,
        vs: String(f.ratio),
        target: '≤ 0.1',
        met: (f.ratio as number) <= 0.1,
      });
    } catch (e) {
      log(`moment: ${g.name}: ${(e as Error).message}`);
      figures[g.name] = { error: (e as Error).message.slice(0, 300) };
    }
  }
  return { name: 'moment', figures, rows };
}
