/**
 * The kit example games (Python and Godot Walker) as real processes, and small HTTP helpers
 * for talking the contract to them. Every process is found again by the temp
 * GAME_BRIDGE_HOME in its environment, so a test can prove nothing it started is left.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, Reaper, collectOutput, healthOk, pythonExe, waitFor } from '../helpers/procs.js';

export const PY_EXAMPLE = join(ROOT, 'examples', 'python-game');
export const GODOT_EXAMPLE = join(ROOT, 'examples', 'godot-game');
/** Godot's first start in a fresh container imports the project; a loaded machine is slower still. */
export const GODOT_READY_MS = 60000;
/** Python starts in well under a second, but other suites may be loading the machine. */
export const PYTHON_READY_MS = 30000;

export interface KitGame {
  port: number;
  child: ChildProcess;
  output: { readonly text: string };
}

/** Spawn a kit game with its debug port (the arguments exactly as gamebridge.json gives them). */
export function spawnKitGame(
  reaper: Reaper,
  kit: 'python' | 'godot',
  portArg: string,
  home: string,
): { child: ChildProcess; output: { readonly text: string } } {
  const env: NodeJS.ProcessEnv = { ...process.env, GAME_BRIDGE_HOME: home };
  delete env.GAME_BRIDGE_INSTANCES;
  const child =
    kit === 'python'
      ? reaper.spawn(pythonExe(), ['game.py', '--debug-port', portArg], { cwd: PY_EXAMPLE, env })
      : reaper.spawn('godot3-server', ['--path', '.', '--', `--debug-port=${portArg}`], { cwd: GODOT_EXAMPLE, env });
  return { child, output: collectOutput(child) };
}

/** Start a kit game on `port`; resolves once /health answers. */
export async function startKitGame(
  reaper: Reaper,
  kit: 'python' | 'godot',
  port: number,
  home: string,
): Promise<KitGame> {
  const { child, output } = spawnKitGame(reaper, kit, String(port), home);
  const timeout = kit === 'godot' ? GODOT_READY_MS : PYTHON_READY_MS;
  await waitFor(`${kit} Walker on ${port} (output so far: ${output.text.slice(-300)})`, () => healthOk(port), timeout);
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
