/**
 * Bench plumbing: processes reaped by pid, temp homes, ports, MCP clients, stats.
 *
 * Self-contained on purpose (the test helpers are not compiled into dist/; they take waitFor and
 * the browser from here instead). Every process the
 * bench starts goes through the Reaper; daemons are asked to stop (SIGTERM: they reap the games
 * they launched) before SIGKILL.
 */
import { execFile, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { sleep } from '../shared/sleep.js';
import { pidAlive, readDaemonFile } from '../shared/daemon-file.js';
import { homePaths } from '../shared/paths.js';
import { answersHealth } from '../daemon/game/probe.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const DIST = resolve(HERE, '..');
export const CLI = join(DIST, 'proxy', 'main.js');
export const GAME = join(DIST, 'examples', 'crate-stack', 'main.js');

export const now = () => performance.now();
// re-exported: the benchmarks take their helpers from this file
export { sleep };
export const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

// ---------- processes ----------

/**
 * Is `pid` running? A zombie is not: a killed daemon whose parent has died (a promoted standby)
 * is reaped by init, here seconds later, and a wait for it would start the clock late.
 */
export function alive(pid: number): boolean {
  return pidAlive(pid);
}

export async function waitGone(pid: number, timeoutMs = 5000): Promise<boolean> {
  const start = Date.now();
  while (alive(pid)) {
    if (Date.now() - start > timeoutMs) return false;
    await sleep(10);
  }
  return true;
}

/** Poll `fn` every `everyMs` until it answers something truthy; past `timeoutMs`, throw its last error. */
export async function waitFor<T>(
  what: string,
  fn: () => T | Promise<T>,
  timeoutMs = 15000,
  everyMs = 10,
): Promise<NonNullable<T>> {
  const start = Date.now();
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      last = e;
    }
    if (Date.now() - start > timeoutMs)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await sleep(everyMs);
  }
}

/** Every pid the bench started (or caused: daemons, launched games), killed by pid at the end. */
export class Reaper {
  private pids = new Set<number>();
  private daemonHomes = new Set<string>();
  private dirs = new Set<string>();

  constructor() {
    // Last resort: a crash or Ctrl-C must not leave games or daemons behind.
    process.on('exit', () => this.killSync());
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.on(sig, () => {
        log(`${sig}: reaping`);
        void this.reap().finally(() => process.exit(130));
      });
    }
  }

  track(pid: number | undefined): void {
    if (pid) this.pids.add(pid);
  }

  /** A home whose daemon (whichever pid it has by then) must be stopped at the end. */
  home(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.add(dir);
    this.daemonHomes.add(dir);
    return dir;
  }

  tempDir(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.add(dir);
    return dir;
  }

  spawn(cmd: string, args: string[], opts: SpawnOptions = {}): ChildProcess {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    this.track(child.pid);
    return child;
  }

  /** Stop one home's daemon: SIGTERM (it reaps its launched games), then SIGKILL. */
  async stopDaemon(home: string, how: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<number | undefined> {
    const pid = daemonPid(home);
    if (!pid || !alive(pid)) return undefined;
    this.track(pid);
    try {
      process.kill(pid, how);
    } catch {
      /* gone */
    }
    if (!(await waitGone(pid, how === 'SIGTERM' ? 8000 : 3000))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
      await waitGone(pid, 3000);
    }
    return pid;
  }

  async reap(): Promise<void> {
    for (const home of this.daemonHomes) await this.stopDaemon(home).catch(() => undefined);
    this.killSync();
    await Promise.all([...this.pids].map((p) => waitGone(p, 3000)));
    this.pids.clear();
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
    this.dirs.clear();
    this.daemonHomes.clear();
  }

  private killSync(): void {
    for (const home of this.daemonHomes) this.track(daemonPid(home));
    for (const pid of this.pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
}

export function daemonPid(home: string): number | undefined {
  return readDaemonFile(homePaths(home).daemonJson)?.pid;
}

/** The standby daemon.json names, once it is ready and alive (daemon/life/standby.ts). */
export function liveStandby(home: string): number | undefined {
  const standby = readDaemonFile(homePaths(home).daemonJson)?.standby;
  return standby && alive(standby.pid) ? standby.pid : undefined;
}

/** VmRSS (and the VmHWM peak) of a pid, in MB. */
export function rssMb(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** A process's own memory (USS: the private pages of /proc/<pid>/smaps_rollup), in MB; what it costs beyond what it shares. */
export function ownMb(pid: number): number {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return (kb('Private_Clean') + kb('Private_Dirty')) / 1024;
}

// ---------- ports ----------

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: '127.0.0.1', exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** `count` consecutive ports that are free right now, from a random base (checked in chunks). */
export async function freeRange(count: number): Promise<number[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const base = 20000 + Math.floor(Math.random() * 30000);
    const ports = Array.from({ length: count }, (_, i) => base + i);
    let ok = true;
    for (let i = 0; i < ports.length && ok; i += 200) {
      ok = (await Promise.all(ports.slice(i, i + 200).map(canBind))).every(Boolean);
    }
    if (ok) return ports;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}

// ---------- games ----------

export interface Game {
  port: number;
  child: ChildProcess;
  /** lines the game printed, with their arrival time in this process */
  onLine(fn: (line: string, at: number) => void): void;
}

export async function startGame(reaper: Reaper, port: number, home: string, args: string[] = []): Promise<Game> {
  const child = reaper.spawn(process.execPath, [GAME, '--port', String(port), ...args], {
    env: { ...process.env, GAME_BRIDGE_HOME: home },
  });
  const listeners: ((line: string, at: number) => void)[] = [];
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    const at = now();
    buf += d.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      for (const l of listeners) l(line, at);
    }
  });
  child.stderr!.resume();
  await waitFor(`game on ${port}`, () => healthOk(port), 20000, 25);
  return { port, child, onLine: (fn) => listeners.push(fn) };
}

/** Does the game answer /health (the daemon's own one-look probe, with a one-second patience)? */
export const healthOk = (port: number) => answersHealth(port, 1000);

/** The reference client: a keep-alive GET /state, body parsed as the engine would. */
export class DirectState {
  private agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  constructor(private port: number) {}
  get(): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: this.port, path: '/state', agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  }
  close(): void {
    this.agent.destroy();
  }
}

// ---------- MCP clients ----------

export interface Mcp {
  client: Client;
  pid: number;
  close(): Promise<void>;
  call(name: string, args?: Record<string, unknown>): Promise<Record<string, any>>;
}

export function benchEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (typeof v === 'string' && !k.startsWith('GAME_BRIDGE_')) env[k] = v;
  return { ...env, GAME_BRIDGE_HOME: home, ...extra };
}

/** The SDK client on the real CLI: `mode` proxy (daemon pair) or in-process (--no-daemon). */
export async function connectMcp(
  reaper: Reaper,
  mode: 'proxy' | 'in-process',
  home: string,
  args: string[] = [],
  cwd?: string,
  as = { name: 'bench', version: '1.0.0' },
  extraEnv: Record<string, string> = {},
): Promise<Mcp> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, ...(mode === 'in-process' ? ['--no-daemon'] : []), ...args],
    env: benchEnv(home, extraEnv),
    cwd,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  const client = new Client(as);
  await client.connect(transport);
  const pid = transport.pid!;
  reaper.track(pid);
  return {
    client,
    pid,
    async close() {
      await client.close().catch(() => undefined);
      await waitGone(pid, 3000);
    },
    async call(name, args = {}) {
      const res = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60000 })) as {
        content: { type: string; text?: string }[];
        structuredContent?: Record<string, unknown>;
        isError?: boolean;
      };
      const text = res.content.find((c) => c.type === 'text')?.text ?? '';
      if (res.isError) throw new Error(`${name} failed: ${text}`);
      return (res.structuredContent ?? JSON.parse(text)) as Record<string, any>;
    },
  };
}

// ---------- stats ----------

/** Nearest-rank percentile of an unsorted sample. */
export function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
export const median = (xs: number[]) => pct(xs, 50);
export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
export const round = (x: number, d = 2) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : x);

/** A project in `home` whose gamebridge.json launches Crate Stack (with `args`) on `ports`, with an empty gamebridge-tests/. */
/** A long saved test's body: `steps` presses of 10 frames, right and left by turns, each at its frame. */
export function alternatingPresses(steps: number): string[] {
  return Array.from({ length: steps }, (_, i) =>
    JSON.stringify({
      do: 'call_tool',
      name: 'bridge.press',
      arguments: { input: i % 2 ? 'left' : 'right', frames: 10 },
      atSimFrame: i * 10,
    }),
  );
}

export function crateStackProject(home: string, ports: number[], args: string[] = []): string {
  const project = join(home, 'project');
  mkdirSync(join(project, 'gamebridge-tests'), { recursive: true });
  writeFileSync(
    join(project, 'gamebridge.json'),
    JSON.stringify({
      name: 'Crate Stack',
      launch: {
        command: [`"${process.execPath}" "${GAME}" --port {port}`, ...args].join(' '),
        portRange: `${ports[0]}-${ports[ports.length - 1]}`,
      },
    }),
  );
  return project;
}

/** `game-bridge-mcp test <args>` run in `cwd` with the JSON reporter: its wall time and its report. */
export async function runSavedTests<R>(
  args: string[],
  cwd: string,
  home: string,
  timeoutMs: number,
): Promise<{ wallMs: number; report: R }> {
  const out = join(cwd, `report-${Date.now()}.json`);
  const t = now();
  await promisify(execFile)(process.execPath, [CLI, 'test', ...args, '--reporter', 'json', '--output', out], {
    cwd,
    env: benchEnv(home),
    timeout: timeoutMs,
  }).catch((e: { stdout?: string }) => {
    throw new Error(`game-bridge-mcp test ${args.join(' ')} failed: ${e.stdout ?? e}`);
  });
  return { wallMs: now() - t, report: JSON.parse(readFileSync(out, 'utf8')) as R };
}
