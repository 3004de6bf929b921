/**
 * Re-adoption: sort what a previous daemon wrote into launched.json into games that are still
 * there (pid alive and /health ok) and games that are gone; of those, `died` are the games
 * whose process is gone (their exit is recorded). A launch that was still starting
 * when its daemon died is adopted if it has come up since, and otherwise reaped: its
 * launch_instance call was interrupted, and nobody else would ever stop it.
 */
import { answersHealth } from '../game/probe.js';
import { pidAlive, sameProcess, treeAlive } from './processes.js';
import { escalate } from './stop.js';
import { groupOf, type LaunchedInstance } from './types.js';
import { gameAlive } from './watch.js';

export interface Readoption {
  adopted: LaunchedInstance[];
  gone: LaunchedInstance[];
  /** the gone games (not launches still starting) whose process no longer runs */
  died: LaunchedInstance[];
}

/** Entries already held (`held(port)`) are skipped; both lists come back sorted by port. */
export async function sortForReadoption(
  entries: LaunchedInstance[],
  held: (port: number) => boolean,
  httpTimeoutMs: number,
): Promise<Readoption> {
  const adopted: LaunchedInstance[] = [];
  const gone: LaunchedInstance[] = [];
  const died: LaunchedInstance[] = [];
  await Promise.all(
    entries.map(async ({ starting, ...inst }) => {
      if (held(inst.port)) return;
      // The pid is ours only with the start time it was recorded with: a recycled pid is a
      // stranger's process. Without a start time (an older daemon's file), a live pid is adopted
      // only when its port answers, and never killed.
      const recycled = inst.pidStart !== undefined && pidAlive(inst.pid) && !sameProcess(inst.pid, inst.pidStart);
      const alive = !recycled && (starting ? treeAlive(groupOf(inst)) : gameAlive(inst));
      if (alive && (await healthOk(inst.port, httpTimeoutMs))) return void adopted.push(inst);
      if (starting && alive && inst.pidStart !== undefined) await escalate(groupOf(inst)).catch(() => undefined);
      gone.push(inst);
      if (!starting && !alive) died.push(inst);
    }),
  );
  const byPort = (a: LaunchedInstance, b: LaunchedInstance) => a.port - b.port;
  return { adopted: adopted.sort(byPort), gone: gone.sort(byPort), died: died.sort(byPort) };
}

/** A re-adopted game must answer within a second (or the session's shorter timeout). */
const healthOk = (port: number, timeoutMs: number) => answersHealth(port, Math.min(timeoutMs, 1000));
