/**
 * 10. Playing in time, through proxy+daemon on a 60 fps Crate Stack (the Node kit): `step
 * {frames: 1}` on the paused game and `press {input, frames: 1}` on the running one, each a
 * full tool call; and `get_state` on the Godot 3 kit's Walker (godot3-server, headless) beside
 * the Node kit game, in alternating blocks, for the latency the Godot kit adds.
 */
import { join } from 'node:path';
import { connectMcp, DIST, freeRange, healthOk, now, pct, round, startGame, waitFor, type Reaper } from './harness.js';
import { ms, type BenchConfig, type Measurement } from './types.js';

const FRAME_MS = 1000 / 60;
const GODOT_PROJECT = join(DIST, '..', 'examples', 'godot-game');

/** `n` timed calls after 20 untimed ones. */
async function timed(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 20; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = now();
    await fn();
    out.push(now() - t);
  }
  return out;
}

export async function measurePlay(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-play-');
  const [crate, godot] = await freeRange(2);
  await startGame(r, crate, home, ['--fps', '60']);
  const mcp = await connectMcp(r, 'proxy', home);
  const n = Math.max(50, cfg.commands);
  const call = (port: number, name: string, args: Record<string, unknown> = {}) =>
    mcp.call('call_tool', { port, name, arguments: args });

  await call(crate, 'pause');
  const step = await timed(n, () => call(crate, 'step', { frames: 1 }));
  await call(crate, 'resume');
  const press = await timed(n, () => call(crate, 'press', { input: 'left', frames: 1 }));

  let godotFigures: Record<string, number> | null = null;
  let godotNote = '';
  try {
    r.spawn('godot3-server', ['--path', '.', '--', `--debug-port=${godot}`], {
      cwd: GODOT_PROJECT,
      env: { ...process.env, GAME_BRIDGE_HOME: home },
    });
    await waitFor('Godot Walker', () => healthOk(godot), 90000, 100);
    const sides: Record<string, number[]> = { godot: [], node: [] };
    for (const port of [godot, crate]) for (let i = 0; i < 30; i++) await call(port, 'get_state');
    for (let block = 0; sides.godot.length < n * 2; block++) {
      for (const [side, port] of block % 2
        ? ([
            ['node', crate],
            ['godot', godot],
          ] as const)
        : ([
            ['godot', godot],
            ['node', crate],
          ] as const)) {
        for (let i = 0; i < 50; i++) {
          const t = now();
          await call(port, 'get_state');
          sides[side].push(now() - t);
        }
      }
    }
    godotFigures = {
      godotP50: pct(sides.godot, 50),
      nodeP50: pct(sides.node, 50),
      godotP99: pct(sides.godot, 99),
      nodeP99: pct(sides.node, 99),
    };
  } catch (e) {
    godotNote = `Godot not measured: ${(e as Error).message}`;
  }
  await mcp.close();

  const stepP50 = pct(step, 50);
  const pressP50 = pct(press, 50);
  const rows: Measurement['rows'] = [
    {
      id: '10 play',
      what: `step {frames: 1} on a paused 60 fps game p50 / p99 (n=${n})`,
      value: `${ms(stepP50)} / ${ms(pct(step, 99))}`,
      target: `≤ 1 frame + 4 ms (${ms(FRAME_MS + 4, 1)})`,
      met: stepP50 <= FRAME_MS + 4,
    },
    {
      id: '10 play',
      what: `press {frames: 1} round trip p50 / p99 (n=${n})`,
      value: `${ms(pressP50)} / ${ms(pct(press, 99))}`,
      target: `≤ 2 frames + 4 ms (${ms(2 * FRAME_MS + 4, 1)})`,
      met: pressP50 <= 2 * FRAME_MS + 4,
    },
  ];
  if (godotFigures) {
    const added = godotFigures.godotP50 - godotFigures.nodeP50;
    rows.push({
      id: '10 play',
      what: `get_state on the Godot 3 kit p50 / p99 (n=${n * 2})`,
      value: `${ms(godotFigures.godotP50, 3)} / ${ms(godotFigures.godotP99, 3)}`,
      reference: `Node kit ${ms(godotFigures.nodeP50, 3)}`,
      vs: `${added >= 0 ? '+' : ''}${ms(added, 3)}`,
      met: null,
    });
  } else rows.push({ id: '10 play', what: 'get_state on the Godot 3 kit', value: godotNote, met: null });
  return {
    name: 'play',
    figures: {
      step: { p50: round(stepP50), p99: round(pct(step, 99)), n },
      press: { p50: round(pressP50), p99: round(pct(press, 99)), n },
      godot: godotFigures
        ? Object.fromEntries(Object.entries(godotFigures).map(([k, v]) => [k, round(v, 3)]))
        : godotNote,
    },
    rows,
  };
}
