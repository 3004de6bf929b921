/**
 * Process-tree liveness and killing. Launched games run detached, i.e. as the leader of their
 * own process group, so the group id is the launch pid. tree-kill walks the tree below the
 * pid; signalling the group as well catches what tree-kill cannot see any more (a game whose
 * shell wrapper already died has been re-parented away from the tree, but not out of the group).
 */
import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pidAlive, processStart, procStat, sameProcess } from '../../shared/daemon-file.js';

export { pidAlive, processStart, sameProcess };
import treeKill from 'tree-kill';
import { sleep } from '../../shared/sleep.js';

const hasProc = process.platform === 'linux';

/** Does any live (non-zombie) process of the group led by `pgid` still exist? */
export function groupAlive(pgid: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (!hasProc) return true;
  for (const name of readdirSync('/proc')) {
    if (name.charCodeAt(0) > 57) continue; // not a pid
    const st = procStat(name);
    if (st && st[1] === pgid && st[0] !== 'Z') return true;
  }
  return false;
}

/** The launch pid or anything of its process group is still running. */
export function treeAlive(pid: number): boolean {
  return pidAlive(pid) || groupAlive(pid);
}

/** tree-kill's walk may take this long; past it, the process group is signalled anyway. */
const TREE_WALK_MS = 2000;

/**
 * Is the program tree-kill spawns (`ps` on Linux, `pgrep` on macOS) on our PATH? Without it
 * tree-kill never calls back (slim images, or a client's minimal PATH the daemon inherited),
 * and a stop waiting on it hung for ever.
 */
function treeWalkerPresent(): boolean {
  if (process.platform === 'win32') return true;
  const name = process.platform === 'darwin' ? 'pgrep' : 'ps';
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir || '.', name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Signal the whole tree under `pid` (tree-kill, bounded) and its process group. Never throws, never hangs. */
export async function killTree(pid: number, signal: NodeJS.Signals): Promise<void> {
  if (pidAlive(pid) && treeWalkerPresent()) {
    await new Promise<void>((resolve) => {
      const bound = setTimeout(resolve, TREE_WALK_MS);
      try {
        treeKill(pid, signal, () => (clearTimeout(bound), resolve()));
      } catch {
        clearTimeout(bound);
        resolve();
      }
    });
  }
  if (process.platform !== 'win32') {
    try {
      process.kill(-pid, signal);
    } catch {
      /* group already empty */
    }
  }
  try {
    process.kill(pid, signal); // the launch pid itself, had it left its group
  } catch {
    /* gone */
  }
}

export async function waitUntil(
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 50,
): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() >= end) return false;
    await sleep(everyMs);
  }
}
