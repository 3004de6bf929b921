/**
 * The kit example games (the Python, Godot, LÖVE and C# Walkers) as real processes, and small
 * HTTP helpers for talking the contract to them. Every process is found again by the temp
 * GAME_BRIDGE_HOME in its environment, so a test can prove nothing it started is left.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readDeclaration } from '../../daemon/launcher/declaration.js';
import { ROOT, Reaper, collectOutput, healthOk, pythonExe, waitFor } from '../helpers/procs.js';

export const PY_EXAMPLE = join(ROOT, 'examples', 'python-game');
export const GODOT_EXAMPLE = join(ROOT, 'examples', 'godot-game');
export const LOVE_EXAMPLE = join(ROOT, 'examples', 'love-game');
export const CSHARP_EXAMPLE = join(ROOT, 'examples', 'csharp-game');
/** Godot's first start in a fresh container imports the project; a loaded machine is slower still. */
export const GODOT_READY_MS = 60000;
/** Python starts in well under a second, but other suites may be loading the machine. */
export const PYTHON_READY_MS = 30000;
export const LOVE_READY_MS = 30000;
/** C# compiles the example with mcs on its first start. */
export const CSHARP_READY_MS = 60000;

export type KitName = 'python' | 'godot' | 'love' | 'csharp';

const RUNTIMES: Record<KitName, string[]> = {
  python: ['python3'],
  // the example draws on godot3-runner under Xvfb; godot3-server runs it headless
  godot: ['godot3-runner', 'Xvfb', 'godot3-server'],
  love: ['love'],
  csharp: ['mcs', 'mono'],
};
const TITLES: Record<KitName, string> = { python: 'Python', godot: 'Godot 3', love: 'LÖVE', csharp: 'C#' };

/** The programs `kit` needs that are not on PATH (empty when it can run here). */
export function missingRuntimes(kit: KitName, extra: string[] = []): string[] {
  return [...RUNTIMES[kit], ...extra].filter((r) => spawnSync('sh', ['-c', `command -v ${r}`]).status !== 0);
}

/**
 * Declares the kit's tests with `body`, or, when a program it needs is missing, one test saying
 * so: skipped on a developer's machine, failing under CI=true.
 */
export function describeIfRuntime(kit: KitName, body: () => void, extra: string[] = []): void {
  const missing = missingRuntimes(kit, extra);
  if (!missing.length) return body();
  const why = `${TITLES[kit]} kit: ${missing.join(', ')} not installed (.ci/run installs it)`;
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

/** A virtual X display of its own for one LÖVE game (Xvfb picks a free number and writes it on fd 3). */
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

/** How long each kit's example may take to answer /health. */
export const READY_MS: Record<KitName, number> = {
  python: PYTHON_READY_MS,
  godot: GODOT_READY_MS,
  love: LOVE_READY_MS,
  csharp: CSHARP_READY_MS,
};

/**
 * How the example in `dir` is launched, as its gamebridge.json says (read as the daemon reads
 * it), on `portArg` (which may be garbage: the bad-port tests). A bare `python3` is the Python
 * the tests run.
 */
export function exampleLaunch(
  dir: string,
  portArg: string,
): { cmd: string; args: string[]; cwd: string; env: Record<string, string> } {
  const d = readDeclaration(join(dir, 'gamebridge.json'));
  const [cmd, ...args] = d.command.split(/\s+/).map((w) => w.replaceAll('{port}', portArg));
  return { cmd: cmd === 'python3' ? pythonExe() : cmd, args, cwd: d.cwd, env: d.env };
}

/** Spawns the example in `dir` as gamebridge.json launches it, in `home`, with `extraEnv` on top. */
export function spawnExample(
  reaper: Reaper,
  dir: string,
  portArg: string,
  home: string,
  extraEnv: Record<string, string> = {},
): { child: ChildProcess; output: { readonly text: string } } {
  const { cmd, args, cwd, env: launchEnv } = exampleLaunch(dir, portArg);
  const env: NodeJS.ProcessEnv = { ...process.env, ...launchEnv, ...extraEnv, GAME_BRIDGE_HOME: home };
  delete env.GAME_BRIDGE_INSTANCES;
  const child = reaper.spawn(cmd, args, { cwd, env });
  return { child, output: collectOutput(child) };
}

const EXAMPLE_DIRS: Record<KitName, string> = {
  python: PY_EXAMPLE,
  godot: GODOT_EXAMPLE,
  love: LOVE_EXAMPLE,
  csharp: CSHARP_EXAMPLE,
};

/**
 * Spawn a kit game with its debug port, as its gamebridge.json launches it.
 * LÖVE draws through SDL's offscreen driver here (a real GL context, no display); pass
 * `display` to run it on an X display instead.
 */
export function spawnKitGame(
  reaper: Reaper,
  kit: KitName,
  portArg: string,
  home: string,
  display?: string,
): { child: ChildProcess; output: { readonly text: string } } {
  const extra: Record<string, string> =
    kit !== 'love' ? {} : display ? { DISPLAY: display } : { SDL_VIDEODRIVER: 'offscreen' };
  return spawnExample(reaper, EXAMPLE_DIRS[kit], portArg, home, extra);
}

/** Start a kit game on `port`; resolves once /health answers. */
export async function startKitGame(
  reaper: Reaper,
  kit: KitName,
  port: number,
  home: string,
  display?: string,
): Promise<KitGame> {
  const { child, output } = spawnKitGame(reaper, kit, String(port), home, display);
  await waitFor(
    `${kit} Walker on ${port} (output so far: ${output.text.slice(-300)})`,
    () => healthOk(port),
    READY_MS[kit],
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
export function untilState(port: number, what: string, pred: (s: any) => boolean, timeoutMs = 15000): Promise<any> {
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

/** Sends a command and waits until completedCommandId covers it; returns that state, with the command's id as `sentId`. */
export async function applied(port: number, cmd: string, args: Record<string, string | number> = {}): Promise<any> {
  const r = await command(port, cmd, args);
  if (r.accepted !== true) throw new Error(`${cmd} refused: ${JSON.stringify(r)}`);
  const s = await untilState(port, `${cmd} #${r.commandId} applied`, (st) => st.completedCommandId >= r.commandId);
  return Object.assign(s, { sentId: r.commandId as number });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A 600-frame step on a paused game that takes a step's frames many to a tick: simFrame grows by
 * exactly 600, and the game's own frame count by far fewer (one frame a tick would take 600).
 */
export async function expectBatchedStep(port: number): Promise<void> {
  await applied(port, 'clock.pause');
  const before = await getJson(port, '/state');
  const after = await applied(port, 'clock.step', { frames: 600 });
  expect(after.simFrame).toBe(before.simFrame + 600);
  expect(after.clock).toEqual({ paused: true, stepFramesLeft: 0 });
  expect(after.frame - before.frame).toBeLessThan(100);
}

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
