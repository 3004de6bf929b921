/**
 * The launcher: start a game from its gamebridge.json on a port nobody
 * holds, wait until it answers /health, keep its output in a log file, and own its reaping.
 * The table of what it launched lives in memory and in launched.json, so a successor
 * daemon can re-adopt the games after a crash or a handover.
 */
import { EventEmitter } from 'node:events';
import { closeSync, openSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import type { execa as Execa } from 'execa';
import { GameClient, type Health } from '../game/client.js';
import { answersHealth } from '../game/probe.js';
import { notLaunchedHere, usageError, type UsageFacts } from '../../shared/errors.js';
import { ensureDir, homePaths, type HomePaths } from '../../shared/paths.js';
import { findDeclaration, withPort, type LaunchDeclaration } from './declaration.js';
import { headerLine, logFileName, MAX_LOG_LINES, tailFile } from './logfile.js';
import { readLaunched, writeLaunched } from './persist.js';
import { PortAllocator } from './ports.js';
import { groupAlive, killTree, pidAlive, sleep, treeAlive, waitUntil } from './processes.js';
import type { LaunchedInstance, LaunchOptions, LogTail, StopHow, StopResult } from './types.js';

/** Lines of the child's own output quoted in a launch failure. */
const FAILURE_TAIL_LINES = 20;
const DEFAULT_GRACE_MS = 3000;
const TERM_WAIT_MS = 2000;
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

interface Exit {
  code: number | null;
  signal: string | null;
  spawnError?: string;
}

/**
 * Run the declared command through a shell. The log fd goes straight to the child (no pipes
 * through us): the game keeps logging, and keeps running, if the daemon dies. detached makes
 * it the leader of its own process group; cleanup: false stops execa killing it when we exit.
 */
function spawnGame(execa: typeof Execa, command: string, cwd: string, env: Record<string, string>, logFd: number) {
  // execa's types list only fds 3-9 here; at run time any open fd goes through to spawn().
  const fd = logFd as 3;
  return execa(command, {
    shell: true,
    cwd,
    env,
    extendEnv: false,
    detached: true,
    cleanup: false,
    stdin: 'ignore',
    stdout: fd,
    stderr: fd,
    reject: false,
    buffer: false,
  });
}

/** execa is loaded on the first launch, not at daemon start: a cold daemon answers sooner. */
let execaModule: Promise<typeof import('execa')> | undefined;
const loadExeca = () => (execaModule ??= import('execa'));

export class Launcher extends EventEmitter {
  readonly paths: HomePaths;
  private readonly timeoutMs: number;
  private readonly ports: PortAllocator;
  private readonly table = new Map<number, Entry>();
  private readonly recentLogs = new Map<number, string>();
  /** launches still waiting for /health, by pid: persisted too, so no crash orphans them */
  private readonly starting = new Map<number, LaunchedInstance>();
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
      return await this.start(decl, port, opts);
    } catch (e) {
      this.ports.release(port);
      throw e;
    }
  }

  private async start(decl: LaunchDeclaration, port: number, opts: LaunchOptions): Promise<LaunchedInstance> {
    const command = withPort(decl.command, port);
    // The client's environment, not the daemon's: the game registers where that client reads.
    const env: Record<string, string> = { ...opts.env };
    for (const [k, v] of Object.entries(decl.env)) env[k] = withPort(v, port);

    const { execa } = await loadExeca();
    // Checked after the last await before the spawn: a reap that began meanwhile must not miss a game.
    if (this.closing) throw usageError(`Launch refused on port ${port}: the bridge is shutting down. Call launch_instance again in a moment.`, { port });
    ensureDir(this.paths.home);
    ensureDir(this.paths.logsDir);
    const logFile = logFileName(this.paths.logsDir, port);
    this.remember(port, logFile);
    const fd = openSync(logFile, 'a', 0o600);
    let child: ReturnType<typeof spawnGame>;
    try {
      writeSync(fd, headerLine(command, decl.cwd, port));
      child = spawnGame(execa, command, decl.cwd, env, fd);
    } finally {
      closeSync(fd); // the child holds its own copy
    }
    child.unref();
    const startedAt = new Date();
    let exit: Exit | undefined;
    const exited: Promise<Exit> = Promise.resolve(child).then(
      (r) => (exit = { code: r.exitCode ?? null, signal: r.signal ?? null, spawnError: r.exitCode === undefined && !r.signal ? r.shortMessage : undefined }),
      (e: unknown) => (exit = { code: null, signal: null, spawnError: String(e) }),
    );
    const pid = child.pid;

    const fail = async (what: string, exitCode: number | null, extra: UsageFacts = {}) => {
      if (pid && treeAlive(pid)) {
        await killTree(pid, 'SIGKILL');
        await waitUntil(() => !treeAlive(pid), TERM_WAIT_MS);
      }
      const tail = tailFile(logFile, FAILURE_TAIL_LINES, { skipHeaders: true }).lines;
      return usageError(
        `${what}\nCommand: ${command}\nWorking directory: ${decl.cwd}\nLog: ${logFile}\nLast output:\n` +
          (tail.length ? tail.join('\n') : '(the process wrote nothing)'),
        { port, exitCode, logFile, pid, command, cwd: decl.cwd, ...extra },
      );
    };

    if (!pid) {
      const e = await exited;
      throw await fail(`Launch failed on port ${port}: the command could not be started (${e.spawnError ?? 'no pid'}).`, null);
    }

    // Wake the wait loop at once on exit or cancel instead of after the next sleep.
    let wake: () => void = () => {};
    const onAbort = () => wake();
    opts.signal?.addEventListener('abort', onAbort);
    void exited.then(() => wake());
    const client = new GameClient(port, { timeoutMs: Math.min(this.timeoutMs, 1000) });
    const t0 = Date.now();
    let health: Health | undefined;
    this.starting.set(pid, {
      port, pid, name: decl.name ?? '', version: '', cwd: decl.cwd, command, logFile,
      startedAt: startedAt.toISOString(), readyInMs: 0, owner: opts.owner, declaration: decl.file, starting: true,
    });
    this.saveAll();
    try {
      let delay = 20;
      let lastProgress = t0;
      for (;;) {
        const elapsed = Date.now() - t0;
        if (opts.signal?.aborted) {
          const err = await fail(`Launch cancelled on port ${port}: the request was cancelled before the game answered /health; the process was stopped.`, null, { cancelled: true });
          throw err;
        }
        if (exit) {
          const how = exit.code !== null ? `exited with code ${exit.code}` : exit.signal ? `was killed by signal ${exit.signal}` : `could not be started (${exit.spawnError})`;
          throw await fail(`Launch failed on port ${port}: the process ${how}.`, exit.code, { signal: exit.signal });
        }
        if (elapsed >= decl.readyTimeoutMs) {
          throw await fail(`Launch failed on port ${port}: the game did not answer /health within ${decl.readyTimeoutMs}ms.`, null, { timeoutMs: decl.readyTimeoutMs });
        }
        try {
          health = await client.health(Math.max(50, Math.min(1000, decl.readyTimeoutMs - elapsed)));
          if (!exit) break;
        } catch {
          /* not up yet */
        }
        if (Date.now() - lastProgress >= 1000) {
          lastProgress = Date.now();
          const s = Math.round((lastProgress - t0) / 1000);
          opts.onProgress?.({ elapsedMs: lastProgress - t0, message: `Waiting for ${decl.name ?? 'the game'} to answer on port ${port} (${s}s of ${Math.round(decl.readyTimeoutMs / 1000)}s)` });
        }
        await new Promise<void>((r) => {
          const t = setTimeout(r, delay);
          wake = () => {
            clearTimeout(t);
            r();
          };
        });
        delay = Math.min(250, Math.ceil(delay * 1.5));
      }
    } catch (e) {
      this.starting.delete(pid);
      this.saveAll();
      throw e;
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      wake = () => {};
    }
    const readyInMs = Date.now() - t0;
    const { name, version } = await this.identify(client, health, decl);
    client.close();

    const inst: LaunchedInstance = {
      port,
      pid,
      name,
      version,
      cwd: decl.cwd,
      command,
      logFile,
      startedAt: startedAt.toISOString(),
      readyInMs,
      owner: opts.owner,
      declaration: decl.file,
    };
    this.table.set(port, { inst });
    this.starting.delete(pid);
    this.saveAll();
    this.emit('launched', inst);
    void exited.then((e) => this.rootExited(port, pid, e.code));
    return inst;
  }

  /** name/version: the game's manifest wins, then /health, then the declaration. */
  private async identify(client: GameClient, health: Health | undefined, decl: LaunchDeclaration): Promise<{ name: string; version: string }> {
    let game: Record<string, unknown> = {};
    try {
      const m = (await client.tools()) as { game?: Record<string, unknown> } | null;
      if (m && typeof m.game === 'object' && m.game) game = m.game;
    } catch {
      /* no manifest is fine */
    }
    const str = (...vs: unknown[]) => vs.find((v): v is string => typeof v === 'string' && v.length > 0);
    return {
      name: str(game.name, health?.name, decl.name) ?? basename(decl.dir),
      version: str(game.version, health?.version) ?? '',
    };
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
    this.emit('gone', entry.inst.port);
  }

  async stop(port: number, opts: { graceMs?: number } = {}): Promise<StopResult> {
    const entry = this.table.get(port);
    if (!entry) throw notLaunchedHere(port);
    entry.stopping ??= this.reap(entry, opts.graceMs ?? DEFAULT_GRACE_MS);
    return entry.stopping;
  }

  /** close → wait for quiet → SIGTERM the tree → SIGKILL the tree. */
  private async reap(entry: Entry, graceMs: number): Promise<StopResult> {
    const { port, pid } = entry.inst;
    let how: StopHow;
    try {
      const client = new GameClient(port, { timeoutMs: Math.max(100, Math.min(this.timeoutMs, graceMs)) });
      try {
        await client.command('close');
      } catch {
        /* refused, offline, or not a game any more: the escalation below handles it */
      } finally {
        client.close();
      }
      const quiet = async () => !pidAlive(pid) && !(await this.answers(port));
      if (await waitUntil(quiet, graceMs)) {
        how = 'closed cleanly';
        // The game left on its own; children it forgot to take along still go.
        if (groupAlive(pid)) await this.escalate(pid);
      } else {
        how = await this.escalate(pid);
      }
    } finally {
      this.drop(entry);
      this.remember(port, entry.inst.logFile);
      this.saveAll();
    }
    return { port, stopped: !treeAlive(pid), how };
  }

  /** SIGTERM to the whole tree, then SIGKILL if it is still there. */
  private async escalate(pid: number): Promise<'terminated' | 'killed'> {
    await killTree(pid, 'SIGTERM');
    if (await waitUntil(() => !treeAlive(pid), TERM_WAIT_MS)) return 'terminated';
    await killTree(pid, 'SIGKILL');
    await waitUntil(() => !treeAlive(pid), TERM_WAIT_MS);
    return 'killed';
  }

  private async answers(port: number): Promise<boolean> {
    const c = new GameClient(port, { timeoutMs: 300 });
    try {
      await c.get('/health', 300);
      return true;
    } catch {
      return false;
    } finally {
      c.close();
    }
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
    const logFile = this.table.get(port)?.inst.logFile ?? this.recentLogs.get(port);
    if (!logFile) {
      throw usageError(
        `No log for port ${port}: this bridge did not launch a game there. Only games started with launch_instance have a log; list_instances shows which ones.`,
        { port },
      );
    }
    const n = Number.isFinite(lines) ? Math.max(1, Math.min(MAX_LOG_LINES, Math.floor(lines))) : MAX_LOG_LINES;
    return { port, logFile, ...tailFile(logFile, n) };
  }

  /** Stop every launched instance (close, then tree-kill). */
  async reapAll(): Promise<Array<{ port: number; how: StopHow }>> {
    this.closing = true;
    // A launch still starting is in no table and no file: stop its tree here, or it is orphaned.
    const starting = [...this.starting.keys()].map((pid) => this.escalate(pid).catch(() => undefined));
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

  /**
   * Re-adopt what a previous daemon launched: entries whose pid is alive and whose port
   * answers /health ok come back into the table; the rest are reported gone. A launch that was
   * still starting when its daemon died is adopted if it has come up since, and otherwise
   * reaped: its launch_instance call was interrupted, and nobody else would ever stop it.
   * Rewrites the file.
   */
  async readopt(): Promise<{ adopted: LaunchedInstance[]; gone: LaunchedInstance[] }> {
    const entries = this.persist ? readLaunched(this.paths.launchedJson) : [];
    const adopted: LaunchedInstance[] = [];
    const gone: LaunchedInstance[] = [];
    await Promise.all(
      entries.map(async ({ starting, ...inst }) => {
        if (this.table.has(inst.port)) return;
        const alive = pidAlive(inst.pid) || groupAlive(inst.pid);
        if (alive && (await this.healthOk(inst.port))) return void adopted.push(inst);
        if (starting && alive) await this.escalate(inst.pid).catch(() => undefined);
        gone.push(inst);
      }),
    );
    for (const inst of adopted) {
      const entry: Entry = { inst };
      this.table.set(inst.port, entry);
      this.ports.reserve(inst.port);
      this.remember(inst.port, inst.logFile);
      this.watch(entry);
    }
    for (const inst of gone) this.remember(inst.port, inst.logFile);
    this.saveAll();
    const byPort = (a: LaunchedInstance, b: LaunchedInstance) => a.port - b.port;
    return { adopted: adopted.sort(byPort), gone: gone.sort(byPort) };
  }

  private healthOk(port: number): Promise<boolean> {
    return answersHealth(port, Math.min(this.timeoutMs, 1000));
  }

  /**
   * Stop watching and stop writing launched.json, touching no process and leaving the file
   * as it is (a handover: the successor re-adopts from it).
   */
  dispose(): void {
    this.disposed = true;
    this.closing = true;
    for (const entry of this.table.values()) if (entry.poll) clearInterval(entry.poll);
    this.table.clear();
  }

  private remember(port: number, logFile: string): void {
    this.recentLogs.delete(port);
    this.recentLogs.set(port, logFile);
    if (this.recentLogs.size > RECENT_LOGS) this.recentLogs.delete(this.recentLogs.keys().next().value as number);
  }
}
