/**
 * The launcher: start a game from its gamebridge.json on a port nobody
 * holds, wait until it answers /health, keep its output in a log file, and own its reaping.
 * The table of what it launched lives in memory and in launched.json, so a successor
 * daemon can re-adopt the games after a crash or a handover.
 */
import { EventEmitter } from 'node:events';
import { GameClient, type Health } from '../game/client.js';
import { notLaunchedHere, usageError } from '../../shared/errors.js';
import { homePaths, type HomePaths } from '../../shared/paths.js';
import { findDeclaration, withPort, type LaunchDeclaration } from './declaration.js';
import { MAX_LOG_LINES, readLog, RecentLogs } from './logfile.js';
import { readLaunched, writeLaunched } from './persist.js';
import { PortAllocator } from './ports.js';
import { groupAlive, treeAlive } from './processes.js';
import { identify, launchFailure, waitReady } from './readiness.js';
import { sortForReadoption, type Readoption } from './readopt.js';
import { loadExeca, spawnLogged } from './spawn.js';
import { escalate, reapGame } from './stop.js';
import type { LaunchedInstance, LaunchOptions, LogTail, StopHow, StopResult } from './types.js';
import type { WebGame } from './web-game.js';
import { readoptWebGame, startWebGame } from './web-start.js';

/** Stop's grace period for the game's own close. */
const DEFAULT_GRACE_MS = 3000;
/** How often a re-adopted (or orphaned-group) instance is checked for having exited. */
const EXIT_POLL_MS = 1000;
/** Logs of instances that exited or were stopped stay readable; this many are remembered. */
const RECENT_LOGS = 50;

interface Entry {
  inst: LaunchedInstance;
  /** set while stop() runs: a second stop() joins it, and the exit watch stays quiet */
  stopping?: Promise<StopResult>;
  poll?: NodeJS.Timeout;
}

export class Launcher extends EventEmitter {
  readonly paths: HomePaths;
  private readonly timeoutMs: number;
  private readonly ports: PortAllocator;
  private readonly table = new Map<number, Entry>();
  private readonly recentLogs = new RecentLogs(RECENT_LOGS);
  /** launches still waiting for /health, by pid: persisted too, so no crash orphans them */
  private readonly starting = new Map<number, LaunchedInstance>();
  /** browser games (launch.web): their carrier, page server and Chromium, by port */
  private readonly webGames = new Map<number, WebGame>();
  private disposed = false;
  /** reaping everything (shutdown): no new game may be spawned */
  private closing = false;

  /** false: keep no launched.json (the in-process server reaps its games itself and must not
   *  overwrite the file a daemon on the same home re-adopts from) */
  private readonly persist: boolean;

  constructor(opts: { home: string; timeoutMs?: number; persist?: boolean }) {
    super();
    this.paths = homePaths(opts.home);
    this.persist = opts.persist ?? true;
    this.timeoutMs = opts.timeoutMs ?? 2000;
    this.ports = new PortAllocator(Math.min(this.timeoutMs, 500));
  }

  async launch(opts: LaunchOptions): Promise<LaunchedInstance> {
    const decl = findDeclaration({ cwd: opts.cwd, configPath: opts.configPath });
    if (opts.signal?.aborted) throw usageError('Launch cancelled before it started: nothing was run.');
    const { port } = await this.ports.allocate(decl.portRange);
    try {
      return decl.web ? await this.startWeb(decl, port, opts) : await this.start(decl, port, opts);
    } catch (e) {
      this.ports.release(port);
      throw e;
    }
  }

  /** Spawn on `port`, wait for /health, then enter the table (and launched.json). */
  private async start(decl: LaunchDeclaration, port: number, opts: LaunchOptions): Promise<LaunchedInstance> {
    const command = withPort(decl.command, port);
    // The client's environment, not the daemon's: the game registers where that client reads.
    const env: Record<string, string> = { ...opts.env };
    for (const [k, v] of Object.entries(decl.env)) env[k] = withPort(v, port);

    const { execa } = await loadExeca();
    // Checked after the last await before the spawn: a reap that began meanwhile must not miss a game.
    if (this.closing) throw usageError(`Launch refused on port ${port}: the bridge is shutting down. Call launch_instance again in a moment.`, { port });
    const spawned = spawnLogged(execa, { command, cwd: decl.cwd, env, port, logsDir: this.paths.logsDir, home: this.paths.home });
    this.recentLogs.set(port, spawned.logFile);
    const { pid, logFile, startedAt } = spawned;
    const ready = { port, command, decl, spawned, probeTimeoutMs: Math.min(this.timeoutMs, 1000), signal: opts.signal, onProgress: opts.onProgress };
    if (!pid) {
      const e = await spawned.exited;
      throw await launchFailure(ready, `Launch failed on port ${port}: the command could not be started (${e.spawnError ?? 'no pid'}).`, null);
    }

    const client = new GameClient(port, { timeoutMs: ready.probeTimeoutMs });
    const t0 = Date.now();
    let health: Health | undefined;
    // In launched.json while it starts: a daemon crash now must not orphan it.
    this.starting.set(pid, {
      port, pid, name: decl.name ?? '', version: '', cwd: decl.cwd, command, logFile,
      startedAt: startedAt.toISOString(), readyInMs: 0, owner: opts.owner, declaration: decl.file, starting: true,
    });
    this.saveAll();
    try {
      health = await waitReady(ready, client);
    } catch (e) {
      this.starting.delete(pid);
      this.saveAll();
      client.close();
      throw e;
    }
    const readyInMs = Date.now() - t0;
    const { name, version } = await identify(client, health, decl);
    client.close();

    const inst: LaunchedInstance = {
      port, pid, name, version, cwd: decl.cwd, command, logFile,
      startedAt: startedAt.toISOString(), readyInMs, owner: opts.owner, declaration: decl.file,
    };
    this.table.set(port, { inst });
    this.starting.delete(pid);
    this.saveAll();
    this.emit('launched', inst);
    void spawned.exited.then((e) => this.rootExited(port, pid, e.code));
    return inst;
  }

  /** A browser game (web-start.ts): carrier, page server, Chromium; in the table once the page answered /health. */
  private async startWeb(decl: LaunchDeclaration, port: number, opts: LaunchOptions): Promise<LaunchedInstance> {
    const { inst, game } = await startWebGame(decl, port, opts, {
      paths: this.paths,
      timeoutMs: this.timeoutMs,
      closing: () => this.closing,
      starting: (i) => {
        this.recentLogs.set(port, i.logFile);
        this.starting.set(i.pid, i);
        this.saveAll();
      },
      settled: (pid) => this.starting.delete(pid),
    });
    this.enterWeb(inst, game);
    this.saveAll();
    this.emit('launched', inst);
    return inst;
  }

  /** A running web game joins the table; Chromium going away by itself is the game exiting. */
  private enterWeb(inst: LaunchedInstance, game: WebGame): void {
    const entry: Entry = { inst };
    this.table.set(inst.port, entry);
    this.webGames.set(inst.port, game);
    game.browser.onGone(() => {
      if (!entry.stopping && !this.disposed) this.exitedByItself(entry, null);
    });
  }

  /** The browser game on `port` (its page, hands and screenshot), when this daemon opened it. */
  webGame(port: number): WebGame | undefined {
    return this.webGames.get(port);
  }

  /** The launch pid ended. If its process group lives on (a wrapper that backgrounded the game), keep watching that. */
  private rootExited(port: number, pid: number, code: number | null): void {
    const entry = this.table.get(port);
    if (!entry || entry.inst.pid !== pid || entry.stopping || this.disposed) return;
    if (groupAlive(pid)) return this.watch(entry);
    this.exitedByItself(entry, code);
  }

  private watch(entry: Entry): void {
    if (entry.poll) return;
    entry.poll = setInterval(() => {
      if (entry.stopping || this.disposed) return;
      if (!treeAlive(entry.inst.pid)) this.exitedByItself(entry, null);
    }, EXIT_POLL_MS);
    entry.poll.unref();
  }

  private exitedByItself(entry: Entry, code: number | null): void {
    if (this.table.get(entry.inst.port) !== entry) return;
    this.drop(entry);
    this.saveAll();
    this.emit('exit', entry.inst, code);
  }

  /** The one way out of the table (stopped, exited, reaped): 'gone' tells the caches. */
  private drop(entry: Entry): void {
    if (entry.poll) clearInterval(entry.poll);
    entry.poll = undefined;
    this.table.delete(entry.inst.port);
    this.ports.release(entry.inst.port);
    const web = this.webGames.get(entry.inst.port);
    this.webGames.delete(entry.inst.port);
    void web?.end();
    this.emit('gone', entry.inst.port);
  }

  async stop(port: number, opts: { graceMs?: number } = {}): Promise<StopResult> {
    const entry = this.table.get(port);
    if (!entry) throw notLaunchedHere(port);
    entry.stopping ??= this.reap(entry, opts.graceMs ?? DEFAULT_GRACE_MS);
    return entry.stopping;
  }

  /** Stop escalation (stop.ts); whatever happens, the entry leaves the table. */
  private async reap(entry: Entry, graceMs: number): Promise<StopResult> {
    const { port, pid } = entry.inst;
    let how: StopHow;
    try {
      const web = this.webGames.get(port);
      how = web ? await web.stop(graceMs, this.timeoutMs) : await reapGame(port, pid, graceMs, this.timeoutMs);
    } finally {
      this.drop(entry);
      this.recentLogs.set(port, entry.inst.logFile);
      this.saveAll();
    }
    return { port, stopped: !treeAlive(pid), how };
  }

  isLaunched(port: number): boolean {
    return this.table.has(port);
  }

  get(port: number): LaunchedInstance | undefined {
    return this.table.get(port)?.inst;
  }

  list(): LaunchedInstance[] {
    return [...this.table.values()].map((e) => e.inst).sort((a, b) => a.port - b.port);
  }

  setOwner(port: number, owner: string | undefined): void {
    const entry = this.table.get(port);
    if (!entry || entry.inst.owner === owner) return;
    entry.inst.owner = owner;
    this.saveAll();
  }

  /** The last `lines` (≤ 200) lines of a launched game's log; also after it exited or was stopped. */
  log(port: number, lines = MAX_LOG_LINES): LogTail {
    return readLog(port, this.table.get(port)?.inst.logFile ?? this.recentLogs.get(port), lines);
  }

  /** Stop every launched instance (close, then tree-kill). */
  async reapAll(): Promise<Array<{ port: number; how: StopHow }>> {
    this.closing = true;
    // A launch still starting is in no table and no file: stop its tree here, or it is orphaned.
    const starting = [...this.starting.keys()].map((pid) => escalate(pid).catch(() => undefined));
    const ports = [...this.table.keys()];
    const results = await Promise.all(
      ports.map(async (port) => {
        try {
          const r = await this.stop(port);
          return { port, how: r.how };
        } catch {
          return undefined;
        }
      }),
    );
    await Promise.all(starting);
    return results.filter((r): r is { port: number; how: StopHow } => !!r);
  }

  saveAll(): void {
    if (this.disposed || !this.persist) return;
    writeLaunched(this.paths.launchedJson, [...this.list(), ...this.starting.values()]);
  }

  /** Re-adopt what a previous daemon launched (readopt.ts decides who is still there); rewrites the file. */
  async readopt(): Promise<Readoption> {
    const entries = this.persist ? readLaunched(this.paths.launchedJson) : [];
    const { adopted, gone } = await sortForReadoption(entries.filter((e) => !e.web), (port) => this.table.has(port), this.timeoutMs);
    // Browser games: a carrier on the same port and key, and the page taken back over CDP.
    for (const inst of entries.filter((e) => e.web && !this.table.has(e.port))) {
      const { starting: _starting, ...rest } = inst;
      const game = await readoptWebGame(inst);
      if (!game) {
        gone.push(rest);
        continue;
      }
      adopted.push(rest);
      this.enterWeb(rest, game);
      this.ports.reserve(rest.port);
      this.recentLogs.set(rest.port, rest.logFile);
    }
    for (const inst of adopted) {
      if (this.webGames.has(inst.port)) continue;
      const entry: Entry = { inst };
      this.table.set(inst.port, entry);
      this.ports.reserve(inst.port);
      this.recentLogs.set(inst.port, inst.logFile);
      this.watch(entry);
    }
    for (const inst of gone) this.recentLogs.set(inst.port, inst.logFile);
    this.saveAll();
    return { adopted, gone };
  }

  /**
   * Stop watching and stop writing launched.json, touching no process and leaving the file
   * as it is (a handover: the successor re-adopts from it).
   */
  dispose(): void {
    this.disposed = true;
    this.closing = true;
    for (const entry of this.table.values()) if (entry.poll) clearInterval(entry.poll);
    for (const web of this.webGames.values()) void web.letGo();
    this.webGames.clear();
    this.table.clear();
  }
}
