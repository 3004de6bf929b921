/**
 * The singleton daemon: lock, listen, daemon.json, signals, idle exit, handover.
 *
 * One per GAME_BRIDGE_HOME. The lock is taken before binding, so of several daemons started at
 * once exactly one serves and the others exit quietly (code 0; 1 for `daemon` run by hand).
 */
import { existsSync, rmSync } from 'node:fs';
import { format } from 'node:util';
import { CLOSE_HANDOVER, CLOSE_SHUTDOWN } from '../../shared/frames.js';
import { bridgeHome, ensureDir, homePaths, type HomePaths } from '../../shared/paths.js';
import { VERSION } from '../../shared/version.js';
import { parsePort } from '../../shared/config.js';
import { isBridgeError } from '../../shared/errors.js';
import { readOrCreateToken } from '../../shared/token.js';
import { processStart, type DaemonInfo } from '../../shared/daemon-file.js';
import { ourStandby, readDaemonJson, removeDaemonJsonIfOurs, republishDaemonJson, writeDaemonJson } from './publish.js';
import { DaemonState } from '../state/state.js';
import { DaemonServer } from '../doors/server.js';
import { HomeLock } from './lock.js';
import { startLogRotation } from './log-rotation.js';
import { selfCommand } from '../../shared/self-command.js';
import { isStandby, StandbyKeeper, standbyKind, standbySettingWarning, waitAsStandby } from './standby.js';
import { numberSetting, SETTINGS } from '../../shared/settings.js';

/** How long after publishing daemon.json a daemon starts its standby. */
const STANDBY_DELAY_MS = 1000;

export type { DaemonInfo };

/** Every line the daemon prints is stamped with time and pid (stdout/stderr go to daemon.log). */
function log(...args: unknown[]): void {
  const text = format(...args);
  const stamp = `${new Date().toISOString()} [${process.pid}] `;
  process.stderr.write(
    text
      .split('\n')
      .map((l) => stamp + l)
      .join('\n') + '\n',
  );
}

function routeConsoleToLog(): void {
  console.log = console.info = console.warn = console.error = console.debug = log;
  process.on('uncaughtException', (e) => log('uncaught exception:', e));
  process.on('unhandledRejection', (e) => log('unhandled rejection:', e));
}

/** The pinned daemon port: `daemon --port`, else GAME_BRIDGE_DAEMON_PORT, else 0 (any free port). */
function pinnedPort(port: number | undefined): number {
  if (port !== undefined) return port;
  const env = process.env.GAME_BRIDGE_DAEMON_PORT;
  return env ? parsePort(env) : 0;
}

/** `foreground`: a person ran `daemon` in a terminal, so finding another daemon there is a failure to report, not a lost race. */
export async function runDaemon(opts: DaemonOptions = {}): Promise<void> {
  routeConsoleToLog();
  const paths = homePaths(bridgeHome());
  const role = await roleOf(opts, paths);
  const port = portOrExit(role.port);
  const startedIn = enterHome(paths);
  const run = new DaemonRun(paths);
  run.lockOrExit(role.foreground === true);
  run.watch();
  await run.start(port, startedIn);
}

type DaemonOptions = { port?: number; foreground?: boolean; takeover?: boolean };

/**
 * What this process is to be: a standby that is not light (GAME_BRIDGE_STANDBY=1, or a standby
 * of a daemon run from the compiled modules or by `daemon` in a terminal) waits here, loaded,
 * until its primary dies, then takes over. A standby taking over a home removed meanwhile (its
 * primary killed by whoever removed it) leaves: making the home again would leave an empty one.
 */
async function roleOf(opts: DaemonOptions, paths: HomePaths): Promise<DaemonOptions> {
  let role = opts;
  if (isStandby()) {
    if (!(await waitAsStandby(paths.daemonDir, 'warm'))) process.exit(0);
    log('the primary daemon is gone; the warm standby takes over');
    role = { ...opts, foreground: false, takeover: true };
  }
  if (role.takeover && !existsSync(paths.daemonDir)) process.exit(0);
  return role;
}

/** The port to listen on; a bad GAME_BRIDGE_DAEMON_PORT ends the process with code 2. */
function portOrExit(port: number | undefined): number {
  try {
    return pinnedPort(port);
  } catch (e) {
    log(isBridgeError(e) ? e.text : String(e));
    process.exit(2);
  }
}

/** The home made and daemon.log kept bounded; the daemon then stands in its home, never in a client's project. Returns where it was started. */
function enterHome(paths: HomePaths): string {
  ensureDir(paths.home);
  ensureDir(paths.daemonDir);
  startLogRotation(paths.daemonLog, log);
  const startedIn = process.cwd();
  process.chdir(paths.home);
  return startedIn;
}

/** One daemon's life in its home: the lock, the state and server it serves with, and its end. */
class DaemonRun {
  private state?: DaemonState;
  private server?: DaemonServer;
  private standby?: StandbyKeeper;
  /** daemon.json's content, once published */
  private info?: DaemonInfo;
  private ending = false;
  private readonly lock: HomeLock;

  constructor(private readonly paths: HomePaths) {
    this.lock = new HomeLock(paths.daemonDir);
  }

  /** The one way out: stop the standby, reap or hand over the games, give up the lock, close. */
  readonly finish: Finish = async (why, how, code) => {
    if (this.ending) return;
    this.ending = true;
    log(`shutting down: ${why}`);
    const guard = setTimeout(() => {
      log('shutdown took too long; exiting');
      process.exit(code);
    }, 30000);
    await this.standby?.stop(); // first: it must not take the lock this daemon gives up on purpose
    try {
      if (how === 'reap') await this.state?.reapAll();
      else this.state?.handover();
    } catch (e) {
      log(`${how} failed:`, e);
    }
    if (this.lock.held()) removeDaemonJsonIfOurs(this.paths);
    this.lock.release();
    await this.server?.closeAll(how === 'reap' ? CLOSE_SHUTDOWN : CLOSE_HANDOVER, why).catch(() => undefined);
    clearTimeout(guard);
    log('bye');
    process.exit(code);
  };

  /** The home's lock, or leave: daemons started at once by several proxies lose this race quietly; a person is told it failed. */
  lockOrExit(foreground: boolean): void {
    const { paths } = this;
    if (!this.lock.acquire(log)) {
      const holder = readDaemonJson(paths);
      log(
        `another daemon${holder ? ` (pid ${holder.pid})` : ''} already serves ${paths.home}; exiting. ` +
          `\`${selfCommand()} status\` shows it, \`${selfCommand()} stop\` stops it.`,
      );
      process.exit(foreground ? 1 : 0);
    }
    // Any daemon.json now is a dead holder's: drop it before a racing taker trusts its pid.
    if (readDaemonJson(paths)?.pid !== process.pid) rmSync(paths.daemonJson, { force: true });
  }

  /**
   * From the lock on, every second: still the holder? (If not, or the home was removed, stop
   * writing and leave.) And, once published, daemon.json still ours? (Deleted or corrupted, it
   * wedged every client: the live daemon writes it again.) launched.json last written by another
   * process (a daemon frozen mid-save that woke up) gets this daemon's table back. Armed before
   * anything can fail: a home removed mid-start once left a daemon listening for hours with none
   * of its timers.
   */
  watch(): void {
    setInterval(() => {
      if (this.ending) return;
      if (!this.lock.held())
        return void this.finish('the home lock is no longer ours (or the home is gone)', 'handover', 0);
      if (this.info) republishDaemonJson(this.paths, this.info, log);
      if (this.state?.launcher.repairLaunched())
        log("launched.json was last written by another process; wrote this daemon's table again");
    }, 1000).unref();
  }

  /** Serve, publish daemon.json, keep a standby, leave when idle; a start that fails ends the daemon. */
  async start(port: number, startedIn: string): Promise<void> {
    const { paths, lock } = this;
    try {
      const theState = new DaemonState({ home: paths.home, mode: 'daemon', log, mayWrite: () => lock.held() });
      this.state = theState;
      const served = await serve(paths, port, theState, startedIn, this.finish, () => this.ending);
      const server = (this.server = served.server);
      const info: DaemonInfo = {
        pid: process.pid,
        port: server.port,
        token: served.token,
        version: VERSION,
        startedAt: served.startedAt.toISOString(),
        pidStart: processStart(process.pid),
      };
      this.info = info;
      lock.publish(info.port);
      writeDaemonJson(paths, info);
      log(
        `daemon v${VERSION} listening on 127.0.0.1:${info.port} (MCP over HTTP at http://127.0.0.1:${info.port}/mcp), home ${paths.home}`,
      );
      const standbyWarning = standbySettingWarning();
      if (standbyWarning) log(standbyWarning);
      if (standbyKind() !== 'none') this.standby = keepStandby(paths, info, () => !this.ending && lock.held());
      exitWhenIdle(server, theState, this.finish);
    } catch (e) {
      // Half a daemon (no daemon.json, no timers) must not stay: nothing could find or stop it.
      if (isBridgeError(e)) log(e.text);
      else log('start-up failed:', e);
      void this.finish('start-up failed', 'reap', 2);
    }
  }
}

type Finish = (why: string, how: 'reap' | 'handover', code: number) => Promise<void>;

/** The standby (unless GAME_BRIDGE_STANDBY=0): its facts go into daemon.json while this daemon holds the lock. */
function keepStandby(paths: HomePaths, info: DaemonInfo, mayWrite: () => boolean): StandbyKeeper {
  const standby = new StandbyKeeper(
    paths.daemonLog,
    (facts) => {
      info.standby = facts;
      if (mayWrite()) writeDaemonJson(paths, info);
    },
    log,
  );
  // Not at once: the first requests (a reconnecting client's replay) go first on a small machine.
  setTimeout(() => standby.start(), STANDBY_DELAY_MS).unref();
  return standby;
}

/** The server, after re-adopting the games a crashed daemon left, listening on `port`. */
async function serve(
  paths: HomePaths,
  port: number,
  theState: DaemonState,
  startedIn: string,
  finish: Finish,
  ending: () => boolean,
): Promise<{ server: DaemonServer; token: string; startedAt: Date }> {
  const startedAt = new Date();
  const token = readOrCreateToken(paths);
  const theServer: DaemonServer = new DaemonServer({
    state: theState,
    token,
    log,
    onHandover: () => void finish('handover to a newer proxy', 'handover', 0),
    onStop: () => void finish('stop requested', 'reap', 0),
    ending,
    httpCwd: startedIn,
    statusFacts: (): Record<string, unknown> => ({
      pid: process.pid,
      port: theServer.port,
      mcpUrl: `http://127.0.0.1:${theServer.port}/mcp`,
      version: VERSION,
      home: paths.home,
      startedAt: startedAt.toISOString(),
      uptimeMs: Date.now() - startedAt.getTime(),
      standby: ourStandby(paths), // its pid and kind, as the proxies see it
    }),
  });
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void finish(sig, 'reap', 0));
  // Before daemon.json is published: the first request a reconnecting proxy replays
  // (stop_instance, instance_log...) must already see the games a crashed daemon left.
  try {
    await theState.readopt();
  } catch (e) {
    log('re-adopting launched games failed:', e);
  }
  await theServer.listen(port);
  return { server: theServer, token, startedAt };
}

/** Leave after GAME_BRIDGE_IDLE_EXIT_MS (shared/settings.ts) with no connection, session or game. */
function exitWhenIdle(theServer: DaemonServer, theState: DaemonState, finish: Finish): void {
  const idleMs = numberSetting(SETTINGS.idleExitMs);
  if (idleMs === 0) return; // 0: stay, as a detached TTL of 0 keeps a game
  let idleSince = Date.now();
  setInterval(
    () => {
      if (theServer.connectionCount() > 0 || theState.sessionCount() > 0 || theState.hasInstances()) {
        idleSince = Date.now();
      } else if (Date.now() - idleSince >= idleMs) {
        void finish(`idle for ${idleMs}ms with no sessions and no instances`, 'reap', 0);
      }
    },
    Math.max(20, Math.min(1000, idleMs / 4)),
  ).unref();
}
