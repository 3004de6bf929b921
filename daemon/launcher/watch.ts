/**
 * Watching a launched game for its exit. The game is its own pid (launched.json's `pid`): when
 * this daemon spawned it directly (the exec'd command) its exit status arrives as an event;
 * a game under a wrapper, or one re-adopted from an earlier daemon, is polled, and its status
 * is the wrapper's (a shell's 128+N read as signal N) or unknown.
 */
import { fromWrapper, type ExitStatus } from './exit-records.js';
import { pidAlive, treeAlive, waitUntil } from './processes.js';
import type { Exit, Spawned } from './spawn.js';
import type { LaunchedInstance } from './types.js';

/** How often a game is checked for having exited when no event will say so. */
const EXIT_POLL_MS = 1000;
/** How long an exit waits for its launch pid's status once the game is seen gone. */
const STATUS_WAIT_MS = 1000;

export interface ExitWatch {
  /** stop watching (the game is being stopped, or the daemon lets go of it) */
  stop(): void;
  /** look now; true once the exit has been reported (waits up to `waitMs` for a game on its way out; 0: no waiting) */
  check(waitMs: number): Promise<boolean>;
}

/** Is the game itself still running? Files from older daemons name only the group leader: then the group counts. */
export function gameAlive(inst: Pick<LaunchedInstance, 'pid' | 'pgid'>): boolean {
  return inst.pgid === undefined ? treeAlive(inst.pid) : pidAlive(inst.pid);
}

/** Report `inst`'s exit once to `onExit`, from the launch's own exit event or from polling. */
export function watchExit(
  inst: LaunchedInstance,
  spawned: Spawned | undefined,
  onExit: (status: ExitStatus) => void,
): ExitWatch {
  let done = false;
  let settling: Promise<void> | undefined;
  const launchIsGame = spawned !== undefined && spawned.pid === inst.pid;

  const statusOf = (e: Exit | undefined): ExitStatus => {
    if (!e || e.spawnError) return { code: null, signal: null, from: 'unknown' };
    return launchIsGame ? { code: e.code, signal: e.signal, from: 'game' } : fromWrapper(e.code, e.signal);
  };
  const settle = () =>
    (settling ??= (async () => {
      const e = spawned
        ? await Promise.race([spawned.exited, new Promise<undefined>((r) => setTimeout(r, STATUS_WAIT_MS))])
        : undefined;
      if (done) return;
      done = true;
      clearInterval(poll);
      onExit(statusOf(e));
    })());

  const poll = setInterval(() => {
    if (!done && !gameAlive(inst)) void settle();
  }, EXIT_POLL_MS);
  poll.unref();
  // The launch pid ended: the game itself, or a wrapper that may have left the game running.
  void spawned?.exited.then(() => {
    if (!done && (launchIsGame || !gameAlive(inst))) void settle();
  });

  return {
    stop() {
      done = true;
      clearInterval(poll);
    },
    async check(waitMs) {
      if (done) return settling !== undefined;
      if (gameAlive(inst) && (waitMs <= 0 || !(await waitUntil(() => done || !gameAlive(inst), waitMs, 25))))
        return false;
      if (!done) await settle();
      else await settling;
      return settling !== undefined;
    },
  };
}
