/**
 * 10. Playing in time, through proxy+daemon on a 60 fps Crate Stack (the Node kit): `step
 * {frames: 1}` on the paused game and `press {input, frames: 1}` on the running one, each a
 * full tool call; and `get_state` on each engine kit's Walker (Godot 3 headless, LÖVE under
 * Xvfb, C# under Mono) beside the Node kit game, in alternating blocks, for the latency each kit adds.
 */
import { join } from 'node:path';
import { connectMcp, DIST, freeRange, healthOk, now, pct, round, startGame, waitFor, type Reaper } from './harness.js';
import { ms, type BenchConfig, type Measurement } from './types.js';

const FRAME_MS = 1000 / 60;
const EXAMPLES = join(DIST, '..', 'examples');

/** The kit examples measured beside the Node kit, each run as its gamebridge.json runs it. */
const KIT_GAMES = [
  {
    name: 'godot',
    title: 'Godot 3',
    command: 'godot3-server',
    args: (port: number) => ['--path', '.', '--', `--debug-port=${port}`],
    cwd: join(EXAMPLES, 'godot-game'),
    display: false,
  },
  {
    name: 'love',
    title: 'LÖVE',
    command: 'love',
    args: (port: number) => ['.', '--debug-port', String(port)],
    cwd: join(EXAMPLES, 'love-game'),
    display: true,
  },
  {
    name: 'csharp',
    title: 'C# (Mono)',
    command: 'sh',
    args: (port: number) => ['run.sh', '--debug-port', String(port)],
    cwd: join(EXAMPLES, 'csharp-game'),
    display: false,
  },
];

/** A virtual X display for a LÖVE game (Xvfb picks a free number and writes it on fd 3). */
async function virtualDisplay(r: Reaper): Promise<string> {
  const x = r.spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x720x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const fd3 = x.stdio[3] as NodeJS.ReadableStream;
  let text = '';
  return waitFor(
    'Xvfb display number',
    () => {
      const chunk = fd3.read() as Buffer | null;
      if (chunk) text += chunk.toString();
      return /\d+\n/.test(text) ? `:${text.trim()}` : null;
    },
    10000,
    20,
  );
}

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
  const [crate, ...kitPorts] = await freeRange(1 + KIT_GAMES.length);
  await startGame(r, crate, home, ['--fps', '60']);
  const mcp = await connectMcp(r, 'proxy', home);
  const n = Math.max(50, cfg.commands);
  const call = (port: number, name: string, args: Record<string, unknown> = {}) =>
    mcp.call('call_tool', { port, name, arguments: args });

  await call(crate, 'pause');
  const step = await timed(n, () => call(crate, 'step', { frames: 1 }));
  await call(crate, 'resume');
  const press = await timed(n, () => call(crate, 'press', { input: 'left', frames: 1 }));

  // Each kit's example beside the Node kit, in alternating blocks, for the latency the kit adds.
  const kitFigures: Record<string, Record<string, number> | string> = {};
  for (const [i, kit] of KIT_GAMES.entries()) {
    const port = kitPorts[i];
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, GAME_BRIDGE_HOME: home };
      if (kit.display) env.DISPLAY = await virtualDisplay(r);
      const child = r.spawn(kit.command, kit.args(port), { cwd: kit.cwd, env });
      await waitFor(kit.title, () => healthOk(port), 90000, 100);
      const sides: Record<string, number[]> = { kit: [], node: [] };
      for (const p of [port, crate]) for (let j = 0; j < 30; j++) await call(p, 'get_state');
      for (let block = 0; sides.kit.length < n * 2; block++) {
        const order = block % 2 ? (['node', 'kit'] as const) : (['kit', 'node'] as const);
        for (const side of order) {
          for (let j = 0; j < 50; j++) {
            const t = now();
            await call(side === 'kit' ? port : crate, 'get_state');
            sides[side].push(now() - t);
          }
        }
      }
      kitFigures[kit.name] = {
        kitP50: pct(sides.kit, 50),
        nodeP50: pct(sides.node, 50),
        kitP99: pct(sides.kit, 99),
        nodeP99: pct(sides.node, 99),
      };
      child.kill('SIGKILL');
    } catch (e) {
      kitFigures[kit.name] = `${kit.title} not measured: ${(e as Error).message}`;
    }
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
  for (const kit of KIT_GAMES) {
    const f = kitFigures[kit.name];
    if (typeof f === 'string') {
      rows.push({ id: '10 play', what: `get_state on the ${kit.title} kit`, value: f, met: null });
      continue;
    }
    const added = f.kitP50 - f.nodeP50;
    rows.push({
      id: '10 play',
      what: `get_state on the ${kit.title} kit p50 / p99 (n=${n * 2})`,
      value: `${ms(f.kitP50, 3)} / ${ms(f.kitP99, 3)}`,
      reference: `Node kit ${ms(f.nodeP50, 3)}`,
      vs: `${added >= 0 ? '+' : ''}${ms(added, 3)}`,
      target: '≤ Node kit + 2 ms',
      met: added <= 2,
    });
  }
  return {
    name: 'play',
    figures: {
      step: { p50: round(stepP50), p99: round(pct(step, 99)), n },
      press: { p50: round(pressP50), p99: round(pct(press, 99)), n },
      kits: Object.fromEntries(
        Object.entries(kitFigures).map(([k, f]) => [
          k,
          typeof f === 'string' ? f : Object.fromEntries(Object.entries(f).map(([m, v]) => [m, round(v, 3)])),
        ]),
      ),
    },
    rows,
  };
}
