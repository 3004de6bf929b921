/** Process helpers for tests: spawn, wait, and reap only what the test started, by pid. */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { waitFor as benchWaitFor } from '../../bench/harness.js';
import { selfCommand, selfInvocation } from '../../shared/self-command.js';

export const ROOT = resolve(process.cwd());
export const DIST = join(ROOT, 'dist');
export const CLI = join(DIST, 'proxy', 'main.js');
export const EXAMPLE_GAME = join(DIST, 'examples', 'crate-stack', 'main.js');
/**
 * What the CLI names itself in its hints under the tests' PATH, which its processes inherit:
 * `game-bridge-mcp` once `npm link` (or a global install) put this very main.js on PATH, else
 * `node <abs main.js>`. Tests expect this, so they pass either way.
 */
export const SELF = selfCommand();
/** The same as the command and arguments that register and init write into an MCP client's file. */
export const SELF_INVOCATION = selfInvocation();

/**
 * PATH as in a fresh clone: without the folders that hold a game-bridge-mcp of this install, and
 * with `node` first (npm links beside node) from a link made in `dir`, the caller's temporary
 * folder: for a test of the hints a clone prints.
 */
export function clonePath(dir: string): string {
  const ours = realpathSync(CLI);
  const linksUs = (dir: string): boolean => {
    try {
      return realpathSync(join(dir, 'game-bridge-mcp')) === ours;
    } catch {
      return false;
    }
  };
  symlinkSync(process.execPath, join(dir, 'node'));
  const kept = (process.env.PATH ?? '').split(delimiter).filter((d) => d && !linksUs(d));
  return [dir, ...kept].join(delimiter);
}

/** A hand-written contract game in plain Python (no kit, no pygame): the bridge against another language. */
export const PY_GAME = join(ROOT, 'test', 'fixtures', 'python_contract_stub.py');

/** Running (a zombie waiting for its parent to reap it is not). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

/** Poll `fn` until it answers something truthy (the bench's helper, with the tests' pace). */
export function waitFor<T>(
  what: string,
  fn: () => T | Promise<T>,
  timeoutMs = 10000,
  everyMs = 25,
): Promise<NonNullable<T>> {
  return benchWaitFor(what, fn, timeoutMs, everyMs);
}

export function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Wait until the process group led by `pgid` is empty. */
export async function groupGone(pgid: number, timeoutMs = 5000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (groupExists(pgid)) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

export async function waitGone(pid: number, timeoutMs = 5000): Promise<boolean> {
  const start = Date.now();
  while (alive(pid)) {
    if (Date.now() - start > timeoutMs) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** This process's environment without any GAME_BRIDGE_* setting, then `extra`: what a test's own processes run with. */
export function bridgeFreeEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (typeof v === 'string' && !k.startsWith('GAME_BRIDGE_')) env[k] = v;
  return Object.assign(env, extra);
}

/** A temporary GAME_BRIDGE_HOME, removed by cleanup(). */
export function tempHome(prefix = 'gb-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    /* best effort */
  }
}

/** Tracks pids a test started and kills them (SIGKILL, by pid) at the end. */
export class Reaper {
  private pids = new Set<number>();
  private children: ChildProcess[] = [];
  /** a home for processes spawned without one, so nothing registers in the user's ~/.game-bridge */
  private home?: string;

  track(pid: number | undefined): void {
    if (pid) this.pids.add(pid);
  }

  spawn(cmd: string, args: string[], opts: SpawnOptions = {}): ChildProcess {
    const env = { ...(opts.env ?? process.env) };
    if (!env.GAME_BRIDGE_HOME && !env.GAME_BRIDGE_INSTANCES)
      env.GAME_BRIDGE_HOME = this.home ??= tempHome('gb-reaper-');
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts, env });
    this.children.push(child);
    this.track(child.pid);
    return child;
  }

  async reap(): Promise<void> {
    for (const pid of this.pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    await Promise.all([...this.pids].map((p) => waitGone(p, 3000)));
    this.pids.clear();
    this.children = [];
    if (this.home) removeDir(this.home);
    this.home = undefined;
  }
}

/** Start the example game on `port`; resolves once /health answers. */
export async function startExampleGame(
  reaper: Reaper,
  port: number,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ChildProcess> {
  const child = reaper.spawn(process.execPath, [EXAMPLE_GAME, '--port', String(port), ...args], {
    env: { ...process.env, ...env },
  });
  await waitFor(`example game on ${port}`, () => healthOk(port), 30000);
  return child;
}

let python: string | undefined;
/**
 * The real python3 interpreter (sys.executable), resolved once: a version-manager shim such
 * as pyenv's costs seconds per start, which would dominate every Python-game test.
 */
export function pythonExe(): string {
  python ??=
    process.env.PYTHON ??
    execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
  return python;
}

/** Start the Python contract game on `port`; resolves once /health answers. */
export async function startPyGame(
  reaper: Reaper,
  port: number,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ChildProcess> {
  const child = reaper.spawn(pythonExe(), [PY_GAME, '--port', String(port), ...args], {
    env: { ...process.env, ...env },
  });
  await waitFor(`python game on ${port}`, () => healthOk(port), 30000);
  return child;
}

export async function healthOk(port: number): Promise<boolean> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/health`);
    const j = (await r.json()) as { ok?: boolean };
    return j.ok === true;
  } catch {
    return false;
  }
}

/** Everything a child writes to stdout and stderr, as it arrives (read `.text`). */
export function collectOutput(child: ChildProcess): { readonly text: string } {
  const out = { text: '' };
  child.stdout?.on('data', (d: Buffer) => (out.text += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out.text += d.toString()));
  return out;
}

/**
 * The CLI as a person runs it, with no stdin: its exit code (-1 when a signal ended it), stdout
 * and stderr. Never rejects.
 */
export function runCli(
  args: string[],
  opts: { cwd: string; env: Record<string, string> },
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

/** Resolves with the child's exit code (null when a signal ended it). */
export function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** `game-bridge-mcp stop` for `home` (the daemon reaps its games); never throws. */
export function stopDaemon(home: string): void {
  try {
    execFileSync(process.execPath, [CLI, 'stop'], {
      env: { ...process.env, GAME_BRIDGE_HOME: home },
      stdio: 'ignore',
      timeout: 40000,
    });
  } catch {
    /* not running, or the reaper kills it */
  }
}

/** TCP ports some process of the group `pgid` listens on (Linux: /proc/net/tcp{,6} and each member's descriptors). */
export function listeningPortsOf(pgid: number): number[] {
  const listening = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6'])
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A') listening.set(f[9], parseInt(f[1].split(':').pop()!, 16));
    }
  const ports: number[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && listening.has(m[1])) ports.push(listening.get(m[1])!);
      }
    } catch {
      /* gone meanwhile */
    }
  }
  return ports;
}
