/**
 * The launcher: start a game from its gamebridge.json on a port nobody holds, wait until it
 * answers /health, keep its output in a log file, own its reaping, and keep the facts of its
 * exit when it ends by itself. The table of what it launched (and of what exited) lives in
 * memory and in launched.json, so a successor daemon can re-adopt the games after a crash or
 * a handover.
 */
import { EventEmitter } from 'node:events';
import { notLaunchedHere, usageError } from '../../shared/errors.js';
import { homePaths, type HomePaths } from '../../shared/paths.js';
import { LocalSurfaces } from '../game/local-surfaces.js';
import { findDeclaration, type LaunchDeclaration } from './declaration.js';
import { ExitBook, exitRecord, exitShort, type ExitRecord, type ExitStatus } from './exit-records.js';
import { GameErrors } from './game-errors.js';
import { MAX_LOG_LINES, readLog, RecentLogs } from './logfile.js';
import { LaunchedWriter, readLaunchedFile } from './persist.js';
import { PortAllocator } from './ports.js';
import { treeAlive } from './processes.js';
import { planLaunch } from './profiles.js';
import { readoptFrom, type Readoption } from './readopt.js';
import type { Spawned } from './spawn.js';
import { startGame, type StartContext } from './start.js';
import { startOnFreePort } from './taken-port.js';
import { escalate, reapGame } from './stop.js';
import {
  groupOf,
  type LastCommand,
  type LaunchedInstance,
  type LauncherOptions,
  type LaunchOptions,
  type LogTail,
  type StopHow,
  type StopResult,
} from './types.js';
import { watchExit, type ExitWatch } from './watch.js';
import type { WebGame } from './web-game.js';
import { startWebGame } from './web-start.js';

/** Stop's grace period for the game's own close. */
const DEFAULT_GRACE_MS = 3000;
/** Logs of instances that exited or were stopped stay readable; this many are remembered. */
const RECENT_LOGS = 50;
/** A command confirmation is saved to launched.json at most this often. */
const COMMAND_SAVE_DELAY_MS = 1000;

interface Entry {
  inst: LaunchedInstance;
  /** set while stop() runs: a second stop() joins it, and the exit watch stays quiet */
  stopping?: Promise<StopResult>;
  watch?: ExitWatch;
}

/** What a launcher tells its listeners, with what: the game, or the port it held. */
export interface LauncherEvents {
  /** a game answered and is in the table */
  launched: [inst: LaunchedInstance];
  /** a game ended by itself */
  exit: [inst: LaunchedInstance, record: ExitRecord];
  /** a game left the table (stopped, exited, reaped): its port's facts are stale */
  gone: [port: number];
  warning: [text: string];
}

export class Launcher extends EventEmitter<LauncherEvents> {
  readonly paths: HomePaths;
  private readonly timeoutMs: number;
  readonly ports: PortAllocator;
  /**
   * The browser games this launcher carries, each registered while it runs, so this process's
   * own calls to them are answered without HTTP. The launcher is its only owner: the daemon
   * state hands this one to its clients and scans.
   */
  readonly surfaces = new LocalSurfaces();
  private readonly table = new Map<number, Entry>();
  private readonly exits = new ExitBook();
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
  private readonly writer: LaunchedWriter;
  /** the previous daemon's launched.json has been read (until then, another pid in it is expected) */
  private readoptDone = false;

  constructor(opts: LauncherOptions) {
    super();
    this.paths = homePaths(opts.home);
    this.persist = opts.persist ?? true;
    this.writer = new LaunchedWriter(this.paths.launchedJson, this.persist, opts.mayWrite, () => ({
      instances: [...this.list(), ...this.starting.values()],
      exited: this.exits.list(),
    }));
    this.timeoutMs = opts.timeoutMs ?? 2000;
    this.ports = new PortAllocator(Math.min(this.timeoutMs, 500));
  }

  /** One game from the declaration found from opts.cwd, on a port of its range. */
  async launch(opts: LaunchOptions): Promise<LaunchedInstance> {
    const decl = findDeclaration({ cwd: opts.cwd, configPath: opts.configPath, home: opts.env.HOME });
    if (opts.signal?.aborted) throw usageError('Launch cancelled before it started: nothing was run.');
    planLaunch(decl, 0, opts); // an unknown profile fails before a port is taken
    const allocate = async () => (await this.ports.allocate(decl.portRange, this.exits.ports())).port;
    // The port of the game that answered stays reserved by its table entry (enter).
    const release = (port: number) => void (this.table.has(port) || this.ports.release(port));
    const start = (port: number) => this.startOn(decl, port, opts);
    return startOnFreePort({ allocate, release, start, warn: (text) => this.emit('warning', text) }, opts);
  }

  /** Start on a port already reserved (start.ts does the starting); a game that answered enters the table (and launched.json). */
  async startOn(decl: LaunchDeclaration, port: number, opts: LaunchOptions): Promise<LaunchedInstance> {
    const ctx: StartContext = {
      paths: this.paths,
      timeoutMs: this.timeoutMs,
      surfaces: this.surfaces,
      closing: () => this.closing,
      starting: (i) => {
        this.recentLogs.set(port, i.logFile);
        this.starting.set(i.pgid!, i);
        this.saveAll(); // a daemon crash now must not orphan it
      },
      settled: (pgid) => this.starting.delete(pgid),
    };
    // A browser game (launch.web) is its page carrier, the page's server and Chromium (web-start.ts).
    const { inst, spawned, game }: { inst: LaunchedInstance; spawned?: Spawned; game?: WebGame } = decl.web
      ? await startWebGame(decl, port, opts, ctx)
      : await startGame(decl, port, opts, ctx);
    if (game) this.adoptWeb(port, game);
    this.enter(inst, spawned);
    this.exits.delete(port); // relaunched: the old exit's facts no longer address this port
    this.saveAll();
    this.emit('launched', inst);
    return inst;
  }

  /** A running game joins the table, watched for its exit. */
  private enter(inst: LaunchedInstance, spawned?: Spawned): void {
    const entry: Entry = { inst };
    entry.watch = watchExit(inst, spawned, (status) => this.exited(entry, status));
    this.table.set(inst.port, entry);
    this.ports.reserve(inst.port);
  }

  /** The game ended by itself: keep its facts, reap what it left behind, tell the caches. */
  private exited(entry: Entry, status: ExitStatus): void {
    if (this.table.get(entry.inst.port) !== entry || entry.stopping || this.disposed) return;
    const rec = exitRecord(entry.inst, status);
    this.exits.add(rec);
    this.drop(entry);
    this.saveAll();
    // A wrapper or child it left running would be nobody's to stop.
    if (treeAlive(groupOf(entry.inst))) void escalate(groupOf(entry.inst)).catch(() => undefined);
    this.emit('exit', entry.inst, rec);
  }

  /** The one way out of the table (stopped, exited, reaped): 'gone' tells the caches. */
  private drop(entry: Entry): void {
    entry.watch?.stop();
    this.table.delete(entry.inst.port);
    this.ports.release(entry.inst.port);
    this.recentLogs.set(entry.inst.port, entry.inst.logFile);
    // A browser game's carrier, page server and Chromium go with it (a stop already ended them).
    void this.webGames.get(entry.inst.port)?.end();
    this.webGames.delete(entry.inst.port);
    this.emit('gone', entry.inst.port);
  }

  /** Stop a launched game; one that already exited answers how it went. */
  async stop(port: number, opts: { graceMs?: number } = {}): Promise<StopResult> {
    const entry = this.table.get(port);
    if (!entry) {
      const rec = this.exits.get(port);
      if (rec) return { port, stopped: true, how: `had already exited (${exitShort(rec)})` };
      throw notLaunchedHere(port);
    }
    entry.stopping ??= this.reap(entry, opts.graceMs ?? DEFAULT_GRACE_MS);
    return entry.stopping;
  }

  /** Stop escalation (stop.ts) on the game's process group; whatever happens, the entry leaves the table. */
  private async reap(entry: Entry, graceMs: number): Promise<StopResult> {
    const { port } = entry.inst;
    const group = groupOf(entry.inst);
    entry.watch?.stop();
    let how: StopHow;
    try {
      const web = this.webGames.get(port);
      how = web ? await web.stop(graceMs, this.timeoutMs) : await reapGame(port, group, graceMs, this.timeoutMs);
    } finally {
      this.drop(entry);
      this.saveAll();
    }
    return { port, stopped: !treeAlive(group), how };
  }

  private adoptWeb(port: number, game: WebGame): void {
    this.webGames.set(port, game);
  }

  /** The browser game on `port` (its page, hands and screenshot), when this daemon opened it. */
  webGame(port: number): WebGame | undefined {
    return this.webGames.get(port);
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

  /** Exit records of games that ended by themselves, by port. */
  exitedList(): ExitRecord[] {
    return this.exits.list();
  }

  /**
   * The exit record addressing `port`: one already kept, or, for a running game that just went
   * silent, the one its exit produces within `waitMs` (a crash is noticed a moment after the
   * port closes).
   */
  async exitOf(port: number, waitMs = 0): Promise<ExitRecord | undefined> {
    const entry = this.table.get(port);
    if (!entry) return this.exits.get(port);
    if (entry.watch && !entry.stopping && (await entry.watch.check(waitMs))) return this.exits.get(port);
    return undefined;
  }

  /** Forget exit records (list_instances prune); returns the ports forgotten. */
  pruneExited(): number[] {
    const ports = [...this.exits.ports()];
    for (const p of ports) this.exits.delete(p);
    if (ports.length) this.saveAll();
    return ports;
  }

  setOwner(port: number, owner: string | undefined): void {
    const entry = this.table.get(port);
    if (!entry || entry.inst.owner === owner) return;
    entry.inst.owner = owner;
    this.saveAll();
  }

  /** The game on `port` confirmed a command: the last one is part of its exit facts. */
  noteCommand(port: number, cmd: LastCommand): void {
    const entry = this.table.get(port);
    if (!entry) return;
    entry.inst.lastCommand = cmd;
    this.writer.saveSoon(COMMAND_SAVE_DELAY_MS);
  }

  /** The last `lines` (≤ 200) lines of a launched game's log; also after it exited or was stopped. */
  log(port: number, lines = MAX_LOG_LINES): LogTail {
    return readLog(port, this.logFile(port), lines);
  }

  /** The log of the game launched on `port` (also after it exited or was stopped). */
  private logFile(port: number): string | undefined {
    return this.table.get(port)?.inst.logFile ?? this.recentLogs.get(port) ?? this.exits.get(port)?.logFile;
  }

  /** Each game's errors: its output's, its kit's, its page's (game-errors.ts). */
  readonly errors = new GameErrors((port) => this.logFile(port));

  /** Stop every launched instance (close, then tree-kill). */
  async reapAll(): Promise<Array<{ port: number; how: StopHow }>> {
    this.closing = true;
    // A launch still starting is in no table and no file: stop its tree here, or it is orphaned.
    const starting = [...this.starting.keys()].map((pid) => escalate(pid).catch(() => undefined));
    const results = await Promise.all(
      [...this.table.keys()].map((port) =>
        this.stop(port).then(
          (r) => ({ port, how: r.how }),
          () => undefined,
        ),
      ),
    );
    await Promise.all(starting);
    return results.filter((r): r is { port: number; how: StopHow } => !!r);
  }

  /** Write launched.json now (persist.ts decides whether it is ours to write). */
  saveAll(): void {
    this.writer.save();
  }

  /** launched.json again if another process wrote it last (true when it was rewritten); not before re-adoption read it. */
  repairLaunched(): boolean {
    return this.readoptDone && this.writer.repair();
  }

  /**
   * Re-adopt what a previous daemon launched (readopt.ts: who is still there, exit records, the
   * games that died while no daemon watched). Rewrites the file.
   */
  async readopt(): Promise<Readoption> {
    const file = this.persist
      ? readLaunchedFile(this.paths.launchedJson, this.paths.logsDir, { setAsideBad: true })
      : { instances: [], exited: [], rejected: [], setAside: undefined };
    const sorted = await readoptFrom(
      file,
      {
        held: (port) => this.table.has(port),
        enter: (inst) => this.enter(inst),
        keepExit: (rec) => this.exits.add(rec),
        keepLog: (port, logFile) => this.recentLogs.set(port, logFile),
        warn: (text) => this.emit('warning', text),
      },
      this.timeoutMs,
    );
    this.saveAll();
    this.readoptDone = true;
    return sorted;
  }

  /**
   * Stop watching and stop writing launched.json, leaving the file as it is (a handover: the
   * successor re-adopts from it). Native games are not touched; browser games end.
   */
  dispose(): void {
    this.disposed = true;
    this.closing = true;
    this.writer.dispose();
    for (const entry of this.table.values()) entry.watch?.stop();
    // A browser game ends with its daemon (web-readopt.ts): the successor reports it exited.
    for (const web of this.webGames.values()) void web.end();
    this.webGames.clear();
    this.table.clear();
  }
}
