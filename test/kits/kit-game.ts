/**
 * The kit example games (the Python, Godot, LÖVE and C# Walkers) as real processes, and small HTTP helpers
 * for talking the contract to them. Every process is found again by the temp
 * GAME_BRIDGE_HOME in its environment, so a test can prove nothing it started is left.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, Reaper, collectOutput, healthOk, pythonExe, waitFor } from '../helpers/procs.js';

export const PY_EXAMPLE = join(ROOT, 'examples', 'python-game');
export const GODOT_EXAMPLE = join(ROOT, 'examples', 'godot-game');
export const LOVE_EXAMPLE = join(ROOT, 'examples', 'love-game');
export const CSHARP_EXAMPLE = join(ROOT, 'examples', 'csharp-game');
/** Godot's first start in a fresh container imports the project; a loaded machine is slower still. */
export const GODOT_READY_MS = 60000;
/** Python starts in well under a second, but other suites may be loading the machine. */
export const PYTHON_READY_MS = 30000;
/** LÖVE starts a virtual display first; C# compiles the example with mcs on its first start. */
export const LOVE_READY_MS = 30000;
export const CSHARP_READY_MS = 60000;

export type KitName = 'python' | 'godot' | 'love' | 'csharp';
/** A command and its arguments, as sent to GET /command. */
export type Cmd = [string, Record<string, string | number>?];

/** The Walkers' shared moves: a jump in the air fails; the HUD's Menu opens the pause menu. */
const WALKER_FAILS = {
  before: [['reset'], ['clock.pause'], ['jump']] as Cmd[],
  cmd: ['jump'] as Cmd,
  error: /^the walker is in the air/,
  after: [['clock.resume']] as Cmd[],
};
const WALKER_UI = {
  open: [['reset'], ['ui.activate', { id: 'open-menu' }]] as Cmd[],
  screen: 'MenuScreen',
  button: 'resume',
  after: 'GameScreen',
  disabled: 'options',
  slider: 'volume',
};

/** What the conformance suite knows of each kit: how its example runs and what it serves. */
export interface KitSpec {
  /** what a person calls it */
  title: string;
  example: string;
  readyMs: number;
  /** /health's capabilities, in order */
  capabilities: string[];
  /** the manifest's tools, sorted */
  tools: string[];
  /** a command that fails on the game's own frame (its result: ok false, these words); absent: no commandResults */
  fails?: { before: Cmd[]; cmd: Cmd; error: RegExp; after: Cmd[] };
  /** its menu: `open` shows `screen`, whose `button` (an id) leads to `after`; `disabled` a disabled button, `slider` a 0-1 slider */
  ui?: { open: Cmd[]; screen: string; button: string; after: string; disabled: string; slider: string };
  /** a type of world object it always publishes */
  world?: { type: string };
  /** /screenshot answers a PNG (else 404) */
  screenshot: boolean;
  /** a busy port: exit 2 (fail fast) or keep running without the surface */
  busyPort: 'exit' | 'runs';
  /** the programs it needs */
  runtimes: string[];
}

export const KITS: Record<KitName, KitSpec> = {
  python: {
    title: 'Python',
    example: PY_EXAMPLE,
    readyMs: PYTHON_READY_MS,
    capabilities: ['input', 'clock'],
    tools: ['jump', 'reset', 'teleport'],
    screenshot: false,
    busyPort: 'exit',
    runtimes: ['python3'],
  },
  godot: {
    title: 'Godot 3',
    example: GODOT_EXAMPLE,
    readyMs: GODOT_READY_MS,
    capabilities: ['input', 'clock', 'ui', 'world'],
    tools: ['jump', 'reset', 'teleport'],
    fails: WALKER_FAILS,
    // No tree code in the game: the ids are the Controls' node paths.
    ui: {
      ...WALKER_UI,
      open: [['reset'], ['ui.activate', { id: 'Main/HUD/OpenMenu' }]],
      button: 'Main/Menu/Start',
      disabled: 'Main/Menu/Options',
      slider: 'Main/Menu/Volume',
    },
    world: { type: 'player' },
    screenshot: false,
    busyPort: 'exit',
    runtimes: ['godot3-server'],
  },
  love: {
    title: 'LÖVE',
    example: LOVE_EXAMPLE,
    readyMs: LOVE_READY_MS,
    capabilities: ['input', 'clock', 'ui', 'world'],
    tools: ['jump', 'reset', 'teleport'],
    fails: WALKER_FAILS,
    ui: WALKER_UI,
    world: { type: 'player' },
    screenshot: true,
    busyPort: 'runs',
    runtimes: ['love', 'Xvfb'],
  },
  csharp: {
    title: 'C# (Mono)',
    example: CSHARP_EXAMPLE,
    readyMs: CSHARP_READY_MS,
    capabilities: ['input', 'clock', 'ui', 'world'],
    tools: ['jump', 'reset', 'teleport'],
    fails: WALKER_FAILS,
    ui: WALKER_UI,
    world: { type: 'player' },
    screenshot: false,
    busyPort: 'runs',
    runtimes: ['mcs', 'mono'],
  },
};

/** The runtimes of `kit` that are not on PATH (empty when it can run here). */
export function missingRuntimes(kit: KitName): string[] {
  return KITS[kit].runtimes.filter((r) => spawnSync('sh', ['-c', `command -v ${r}`]).status !== 0);
}

/**
 * Declares the kit's tests with `body`, or, when a runtime is missing, one test saying so:
 * skipped on a developer's machine, failing under CI=true.
 */
export function describeIfRuntime(kit: KitName, body: () => void): void {
  const missing = missingRuntimes(kit);
  if (!missing.length) return body();
  const why = `${KITS[kit].title} kit: ${missing.join(', ')} not installed (.ci/run installs it)`;
  if (process.env.CI === 'true')
    test(why, () => {
      throw new Error(`${why}; under CI every kit runs`);
    });
  else test.skip(why, () => undefined);
}

export interface KitGame {
  port: number;
  child: ChildProcess;
  output: { readonly text: string };
}

/** A virtual X display of its own for one LÖVE game: Xvfb picks a free display number. */
export async function startDisplay(reaper: Reaper, env: NodeJS.ProcessEnv): Promise<string> {
  const x = reaper.spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x720x24', '-nolisten', 'tcp'], {
    env,
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

/** Spawn a kit game with its debug port (the arguments exactly as gamebridge.json gives them). */
export async function spawnKitGame(
  reaper: Reaper,
  kit: KitName,
  portArg: string,
  home: string,
): Promise<{ child: ChildProcess; output: { readonly text: string } }> {
  const env: NodeJS.ProcessEnv = { ...process.env, GAME_BRIDGE_HOME: home };
  delete env.GAME_BRIDGE_INSTANCES;
  let child: ChildProcess;
  if (kit === 'python')
    child = reaper.spawn(pythonExe(), ['game.py', '--debug-port', portArg], { cwd: PY_EXAMPLE, env });
  else if (kit === 'godot')
    child = reaper.spawn('godot3-server', ['--path', '.', '--', `--debug-port=${portArg}`], {
      cwd: GODOT_EXAMPLE,
      env,
    });
  else if (kit === 'love') {
    env.DISPLAY = await startDisplay(reaper, env);
    child = reaper.spawn('love', ['.', '--debug-port', portArg], { cwd: LOVE_EXAMPLE, env });
  } else child = reaper.spawn('sh', ['run.sh', '--debug-port', portArg], { cwd: CSHARP_EXAMPLE, env });
  return { child, output: collectOutput(child) };
}

/** Start a kit game on `port`; resolves once /health answers. */
export async function startKitGame(reaper: Reaper, kit: KitName, port: number, home: string): Promise<KitGame> {
  const { child, output } = await spawnKitGame(reaper, kit, String(port), home);
  await waitFor(
    `${kit} Walker on ${port} (output so far: ${output.text.slice(-300)})`,
    () => healthOk(port),
    KITS[kit].readyMs,
  );
  return { port, child, output };
}

export async function getJson(port: number, path: string): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return res.json();
}

export async function command(port: number, cmd: string, args: Record<string, string | number> = {}): Promise<any> {
  const q = new URLSearchParams({ cmd });
  for (const [k, v] of Object.entries(args)) q.set(k, String(v));
  return getJson(port, `/command?${q}`);
}

/** Polls /state until `pred` holds; returns that state. */
export function untilState(port: number, what: string, pred: (s: any) => boolean, timeoutMs = 10000): Promise<any> {
  return waitFor(
    what,
    async () => {
      const s = await getJson(port, '/state');
      return pred(s) ? s : null;
    },
    timeoutMs,
    5,
  );
}

/** Sends a command and waits until completedCommandId covers it; returns that state. */
export async function applied(port: number, cmd: string, args: Record<string, string | number> = {}): Promise<any> {
  const r = await command(port, cmd, args);
  if (r.accepted !== true) throw new Error(`${cmd} refused: ${JSON.stringify(r)}`);
  return untilState(port, `${cmd} #${r.commandId} applied`, (s) => s.completedCommandId >= r.commandId);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pids of every live process whose environment carries GAME_BRIDGE_HOME=home (ours only). */
export function processesWithHome(home: string): number[] {
  const needle = `GAME_BRIDGE_HOME=${home}\0`;
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(needle)) found.push(Number(name));
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
  return found;
}

/** SIGKILL, by pid, whatever still runs with this home (a failed test's leftovers). */
export function killWithHome(home: string): void {
  for (const pid of processesWithHome(home)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}
