/**
 * The standby: a daemon that serves keeps one more process of its own program waiting beside
 * it, holding nothing (no lock, no port, no file). It waits on an IPC channel from the primary;
 * the channel closes when the primary dies (kill -9 included), and the standby then takes the
 * home lock the usual way (a dead holder, pid + start time), re-adopts, listens and publishes
 * daemon.json without the wait for a new Node process. A primary that ends on purpose (stop,
 * idle exit, handover, lost lock) kills its standby first.
 *
 * Two kinds (GAME_BRIDGE_STANDBY): by default a light one, Node started and the daemon not loaded
 * (it waits in boot.ts and loads the daemon when it takes over: ~10 MB of its own memory); with
 * `1` a warm one, every module loaded (~27 MB, and a takeover that skips the load too); `0` none.
 * Why, and what each costs: docs/DECISIONS.md ("Boot and standby"), docs/PERFORMANCE.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { pidAlive, processStart } from '../../shared/daemon-file.js';
import { sleep } from '../../shared/sleep.js';
import { waitUntil } from '../launcher/processes.js';

/** Set by a primary in its standby's environment: the primary's pid. */
const STANDBY_FOR = 'GAME_BRIDGE_STANDBY_FOR';
/** A standby that died on its own is replaced no sooner than this (no spawn loop on a broken build). */
const RESPAWN_AFTER_MS = 5000;
/** After the channel closed, how long the primary's pid may take to be reaped (exit is not atomic). */
const PRIMARY_EXIT_MS = 3000;

export interface StandbyFacts {
  pid: number;
  pidStart?: number;
  /** where it waits: light (in boot.ts, before the bundle) or warm (every module loaded) */
  kind?: 'light' | 'warm';
}

/** Which standby a daemon keeps (GAME_BRIDGE_STANDBY): `1` warm, `0` none, anything else (unset included) light. */
export type StandbyKind = 'warm' | 'light' | 'none';

/** The values of GAME_BRIDGE_STANDBY this daemon knows; unset counts as ''. */
const KINDS = new Map<string, StandbyKind>([
  ['', 'light'],
  ['light', 'light'],
  ['1', 'warm'],
  ['0', 'none'],
]);

/** The standby this environment asks for (a value it does not know: light). */
export function standbyKind(env: NodeJS.ProcessEnv = process.env): StandbyKind {
  return KINDS.get(env.GAME_BRIDGE_STANDBY ?? '') ?? 'light';
}

/** What to tell of a GAME_BRIDGE_STANDBY this daemon does not know (it keeps a light standby then); undefined when known. */
export function standbySettingWarning(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const v = env.GAME_BRIDGE_STANDBY;
  if (v === undefined || KINDS.has(v)) return undefined;
  return `GAME_BRIDGE_STANDBY=${JSON.stringify(v)} is not 0 (no standby), 1 (a warm one) or light (the default): keeping a light standby`;
}

/** Is this process a standby (started by a primary, not yet promoted)? */
export function isStandby(): boolean {
  return !!process.env[STANDBY_FOR] && typeof process.send === 'function';
}

/**
 * In a standby: say "ready" (and whether it waits light or warm), then wait for the primary to die.
 * True: the primary is gone and this process should become the daemon. False: it is still alive
 * after its channel closed, or the home is gone (a test removed it), so this process should exit.
 */
export async function waitAsStandby(daemonDir: string, kind: 'light' | 'warm'): Promise<boolean> {
  const primary = Number(process.env[STANDBY_FOR]);
  delete process.env[STANDBY_FOR]; // the games and the standby this process may start must not see it
  if (process.connected) {
    const gone = new Promise<void>((resolve) => process.once('disconnect', resolve));
    process.send!({ t: 'ready', kind });
    await gone;
  }
  await waitUntil(() => !pidAlive(primary), PRIMARY_EXIT_MS, 2);
  return !pidAlive(primary) && existsSync(daemonDir);
}

/** The primary's side: start the standby, replace it when it dies, kill it when the primary ends. */
export class StandbyKeeper {
  private child?: ChildProcess;
  private facts?: StandbyFacts;
  private ending = false;
  private lastSpawn = 0;
  private respawnTimer?: NodeJS.Timeout;

  constructor(
    private readonly logFile: string,
    /** the standby is ready (facts) or gone (undefined): daemon.json names it for the proxies */
    private readonly changed: (facts: StandbyFacts | undefined) => void,
    private readonly log: (line: string) => void,
  ) {}

  /** Start a standby running this same daemon program (the bundle, or the compiled entry). */
  start(): void {
    if (this.ending || this.child) return;
    this.lastSpawn = Date.now();
    const fd = openSync(this.logFile, 'a', 0o600);
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
        detached: true, // its own process group: a terminal's Ctrl-C reaches the primary, which ends it
        stdio: ['ignore', fd, fd, 'ipc'],
        env: { ...process.env, [STANDBY_FOR]: String(process.pid) },
      });
    } finally {
      closeSync(fd);
    }
    this.child = child;
    child.on('error', (e) => this.log(`the standby could not start: ${e.message}`));
    child.on('message', (m: { t?: string; kind?: unknown }) => {
      if (m?.t !== 'ready' || !child.pid) return;
      const kind = m.kind === 'light' || m.kind === 'warm' ? m.kind : undefined;
      this.facts = { pid: child.pid, pidStart: processStart(child.pid), kind };
      this.changed(this.facts);
    });
    child.once('exit', (code, signal) => this.lost(child, code, signal));
    child.unref();
    child.channel?.unref(); // the channel must not keep the primary alive, nor its close be awaited
  }

  /** Kill the standby (the primary ends on purpose) and wait, briefly, until it has gone. */
  async stop(): Promise<void> {
    this.ending = true;
    if (this.respawnTimer) clearTimeout(this.respawnTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM'); // before the channel closes: it must not read the close as a crash
    await Promise.race([gone, sleep(2000)]);
  }

  private lost(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = undefined;
    if (this.facts) this.changed((this.facts = undefined));
    if (this.ending) return;
    this.log(`the standby (pid ${child.pid}) exited (${signal ?? code}); starting another`);
    const wait = Math.max(0, this.lastSpawn + RESPAWN_AFTER_MS - Date.now());
    this.respawnTimer = setTimeout(() => this.start(), wait);
    this.respawnTimer.unref();
  }
}
