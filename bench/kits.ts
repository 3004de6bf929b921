/**
 * 11. Every kit at Node speed: `get_state` through proxy+daemon on each kit's example game
 * beside the Node kit's Crate Stack, in alternating blocks of one run, so each kit's figure has
 * the Node figure of the same moment as its reference. A kit joins by adding its example to
 * KITS; a kit whose runtime is missing gets a row that says so.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { connectMcp, DIST, freeRange, healthOk, now, pct, round, startGame, waitFor, type Reaper } from './harness.js';
import { ms, type BenchConfig, type Measurement } from './types.js';
import { readDeclaration, withPort } from '../daemon/launcher/declaration.js';

const EXAMPLES = join(DIST, '..', 'examples');
/** Debian's Python: the one that imports Debian's pygame. */
const SYSTEM_PYTHON = '/usr/bin/python3';
/** What a kit may add to the Node kit's get_state p50. */
const ADDED_MS = 2;

interface KitExample {
  name: string;
  /** command, arguments and folder that start the example on `port` */
  start(port: number): { cmd: string; args: string[]; cwd: string; env?: Record<string, string> };
  /** why it cannot run here, or null */
  missing(): string | null;
  readyMs: number;
}

/** How the example in `examples/<dir>` starts on `port`: its gamebridge.json, read as the daemon reads it. */
function declared(dir: string, port: number, env: Record<string, string> = {}) {
  const d = readDeclaration(join(EXAMPLES, dir, 'gamebridge.json'));
  const [cmd, ...args] = withPort(d.command, port).split(/\s+/);
  return { cmd, args, cwd: d.cwd, env: { ...d.env, ...env } };
}

const onPath = (cmd: string) => (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, cmd)));

const KITS: KitExample[] = [
  {
    name: 'Python',
    start: (port) => declared('python-game', port),
    missing: () => (existsSync(SYSTEM_PYTHON) ? null : `${SYSTEM_PYTHON} is missing`),
    readyMs: 30000,
  },
  {
    name: 'Python (pygame)',
    start: (port) => declared('pygame-game', port),
    missing: () => (existsSync(SYSTEM_PYTHON) ? null : `${SYSTEM_PYTHON} is missing`),
    readyMs: 30000,
  },
  {
    name: 'Godot 3',
    start: (port) => declared('godot-game', port),
    missing: () => (onPath('godot3-server') ? null : 'godot3-server is not on PATH'),
    readyMs: 90000,
  },
  {
    name: 'LÖVE',
    // SDL's offscreen driver: real GL frames without an X server.
    start: (port) => declared('love-game', port, { SDL_VIDEODRIVER: 'offscreen' }),
    missing: () => (onPath('love') ? null : 'love is not on PATH'),
    readyMs: 30000,
  },
  {
    name: 'C# (Mono)',
    start: (port) => declared('csharp-game', port),
    missing: () => (onPath('mcs') && onPath('mono') ? null : 'mcs or mono is not on PATH'),
    readyMs: 60000,
  },
];

export async function measureKits(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-kits-');
  const ports = await freeRange(KITS.length + 1);
  const node = ports[0];
  await startGame(r, node, home, ['--fps', '60']);
  const sides: { name: string; port: number; samples: number[] }[] = [{ name: 'Node', port: node, samples: [] }];
  const notes: Record<string, string> = {};
  for (const [i, kit] of KITS.entries()) {
    const why = kit.missing();
    if (why) {
      notes[kit.name] = `not measured: ${why}`;
      continue;
    }
    const { cmd, args, cwd, env } = kit.start(ports[i + 1]);
    const child = r.spawn(cmd, args, { cwd, env: { ...process.env, ...env, GAME_BRIDGE_HOME: home } });
    child.stdout!.resume();
    child.stderr!.resume();
    try {
      await waitFor(`${kit.name} example`, () => healthOk(ports[i + 1]), kit.readyMs, 100);
      sides.push({ name: kit.name, port: ports[i + 1], samples: [] });
    } catch (e) {
      notes[kit.name] = `not measured: ${(e as Error).message}`;
    }
  }
  const mcp = await connectMcp(r, 'proxy', home);
  const getState = (port: number) => mcp.call('call_tool', { port, name: 'get_state', arguments: {} });
  const n = Math.max(100, cfg.commands * 2);
  for (const s of sides) for (let i = 0; i < 30; i++) await getState(s.port);
  // Blocks of 50 in a rotating order: every side sees the same stretch of machine load.
  for (let block = 0; sides[0].samples.length < n; block++) {
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(block + k) % sides.length];
      for (let i = 0; i < 50; i++) {
        const t = now();
        await getState(side.port);
        side.samples.push(now() - t);
      }
    }
  }
  await mcp.close();

  const nodeP50 = pct(sides[0].samples, 50);
  const figures: Record<string, unknown> = {};
  const rows: Measurement['rows'] = [];
  for (const s of sides) {
    const p50 = pct(s.samples, 50);
    figures[s.name] = { p50: round(p50, 3), p99: round(pct(s.samples, 99), 3), n: s.samples.length };
    if (s === sides[0]) continue;
    const added = p50 - nodeP50;
    rows.push({
      id: '11 kits',
      what: `get_state on the ${s.name} kit p50 / p99 (n=${s.samples.length})`,
      value: `${ms(p50, 3)} / ${ms(pct(s.samples, 99), 3)}`,
      reference: `Node kit ${ms(nodeP50, 3)}`,
      vs: `${added >= 0 ? '+' : ''}${ms(added, 3)}`,
      target: `≤ +${ADDED_MS} ms`,
      met: added <= ADDED_MS,
    });
  }
  for (const [name, note] of Object.entries(notes)) {
    figures[name] = note;
    rows.push({ id: '11 kits', what: `get_state on the ${name} kit`, value: note, met: null });
  }
  return { name: 'kits', figures, rows };
}
