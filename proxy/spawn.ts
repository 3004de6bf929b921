/**
 * Starting the daemon: detached, in GAME_BRIDGE_HOME, its output appended to daemon.log. The
 * bundled build (dist/daemon/bundle.cjs, run by dist/daemon/life/boot.js with its V8 code cache)
 * starts in well under the time of the loose module tree; the compiled daemon/life/entry.js is the
 * fallback when the bundle is missing or stale.
 *
 * `prestartDaemon` runs before the proxy loads anything else, so on a cold start the daemon boots
 * while the proxy is still loading its WebSocket client.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lockHolder, pidAlive, readDaemonFile, sameProcess, type DaemonInfo } from '../shared/daemon-file.js';
import { bridgeHome, ensureDir, homePaths, type HomePaths } from '../shared/paths.js';
import { UnsafeDirError } from '../shared/private-files.js';

/**
 * How often a proxy may start a daemon: two starts back to back, then one a second on average, as
 * a supervisor's start burst. A daemon that dies soon after its own start is replaced at once;
 * a home whose daemon keeps dying still costs at most one boot a second.
 */
export class SpawnThrottle {
  private starts: number[] = [];
  constructor(
    private readonly burst = 2,
    private readonly windowMs = 2000,
  ) {}

  /** May a daemon start at `now`? If so (always, when `force`d), the start is counted. */
  take(now: number, force = false): boolean {
    this.starts = this.starts.filter((t) => now - t < this.windowMs);
    if (!force && this.starts.length >= this.burst) return false;
    this.starts.push(now);
    return true;
  }
}

let child: ChildProcess | undefined;
const throttle = new SpawnThrottle();

function mtime(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/** The bundle (through boot.js), unless a compile newer than it (tsc without `npm run bundle`) makes it stale. */
function daemonCommand(): string[] {
  const bundle = fileURLToPath(new URL('../daemon/bundle.cjs', import.meta.url));
  const compiled = fileURLToPath(new URL('../daemon/life/main.js', import.meta.url));
  if (mtime(bundle) >= mtime(compiled)) return [fileURLToPath(new URL('../daemon/life/boot.js', import.meta.url))];
  // the compiled entry, not `main.js daemon`: that one is for a person, who is told when a daemon already runs
  return [fileURLToPath(new URL('../daemon/life/entry.js', import.meta.url))];
}

/**
 * Why the daemon could not live in the home (someone else's, open to others, not creatable),
 * with the fix; undefined when it can. Cheap (a mkdir and two lstat), so asked at every retry:
 * a home fixed while the client waits is used at once.
 */
export function homeRefusal(paths: HomePaths): string | undefined {
  try {
    ensureDir(paths.home);
    ensureDir(paths.daemonDir);
    return undefined;
  } catch (e) {
    const fix = e instanceof UnsafeDirError ? '' : ' Point GAME_BRIDGE_HOME at a directory you can write.';
    return `The bridge's home is refused: ${(e as Error).message}${fix}`;
  }
}

/** Start a daemon unless the one this proxy started is still running or the throttle says wait (`force`: start regardless, and count it). */
export function spawnDaemon(paths: HomePaths, log: (line: string) => void, force = false): void {
  const running = child && child.exitCode === null && child.signalCode === null;
  if ((running && !force) || !throttle.take(Date.now(), force)) return;
  let fd: number;
  try {
    ensureDir(paths.home);
    ensureDir(paths.daemonDir);
    fd = openSync(paths.daemonLog, 'a', 0o600);
  } catch (e) {
    log(`could not start the daemon: ${(e as Error).message}`);
    return;
  }
  try {
    const c = spawn(process.execPath, daemonCommand(), {
      cwd: paths.home,
      detached: true,
      stdio: ['ignore', fd, fd],
      // The home as resolved here: a relative GAME_BRIDGE_HOME would be read again from the
      // daemon's working directory (the home itself) and name <home>/<home>.
      env: { ...process.env, GAME_BRIDGE_HOME: paths.home },
    });
    c.on('error', (e) => log(`could not start the daemon: ${e.message}`));
    c.unref();
    child = c;
  } finally {
    closeSync(fd);
  }
}

/** Cold start: no daemon.json, or its pid is gone, and no live daemon holds the lock → start the daemon now. */
export function prestartDaemon(): void {
  try {
    const paths = homePaths(bridgeHome());
    const info = readDaemonFile(paths.daemonJson);
    if ((!info || !pidAlive(info.pid)) && !daemonStarting(paths)) spawnDaemon(paths, () => undefined);
  } catch {
    /* the connect loop will try again and report */
  }
}

/**
 * A live process holds the home's lock, so a daemon is on its way (a standby taking over
 * removes the dead daemon's daemon.json before it writes its own): another one would only find
 * the lock taken, after costing a boot.
 */
export function daemonStarting(paths: HomePaths): boolean {
  return lockHolder(paths.daemonDir) !== undefined;
}

/** daemon.json names a dead daemon and its live standby (daemon/life/standby.ts), which takes over. */
export function standbyTakingOver(info: DaemonInfo | undefined): boolean {
  const standby = info?.standby;
  return !!standby && !pidAlive(info.pid) && sameProcess(standby.pid, standby.pidStart);
}
