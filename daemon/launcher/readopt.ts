/**
 * Re-adoption: sort what a previous daemon wrote into launched.json into games that are still
 * there (pid alive and /health ok) and games that are gone; of those, `died` are the games
 * whose process is gone (their exit is recorded). A launch that was still starting
 * when its daemon died is adopted if it has come up since, and otherwise reaped: its
 * launch_instance call was interrupted, and nobody else would ever stop it. A game whose port
 * another process holds now is not taken back either, and is stopped the same way.
 */
import { answersHealth } from '../game/probe.js';
import { exitRecord, type ExitRecord } from './exit-records.js';
import { listenerOwner } from './game-pid.js';
import type { LaunchedRead } from './persist.js';
import { pidAlive, sameProcess, treeAlive } from './processes.js';
import { escalate } from './stop.js';
import { groupOf, type LaunchedInstance } from './types.js';
import { gameAlive } from './watch.js';
import { endOrphanWebGame } from './web-readopt.js';

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
      // What answers must be the game's own listener: another user may have bound the port
      // since the game let go of it, and would otherwise be taken back as the game.
      const answers = alive && (await healthOk(inst.port, httpTimeoutMs));
      const squatted = answers && listenerOwner(inst.port, groupOf(inst)) === 'stranger';
      if (answers && !squatted) return void adopted.push(inst);
      if ((starting || squatted) && alive && inst.pidStart !== undefined)
        await escalate(groupOf(inst)).catch(() => undefined);
      gone.push(inst);
      if (!starting && !alive) died.push(inst);
    }),
  );
  const byPort = (a: LaunchedInstance, b: LaunchedInstance) => a.port - b.port;
  return { adopted: adopted.sort(byPort), gone: gone.sort(byPort), died: died.sort(byPort) };
}

/** A re-adopted game must answer within a second (or the session's shorter timeout). */
const healthOk = (port: number, timeoutMs: number) => answersHealth(port, Math.min(timeoutMs, 1000));

/** What re-adoption does to the launcher's table (launcher.ts). */
export interface ReadoptTarget {
  /** this daemon already holds the port (it launched there since) */
  held(port: number): boolean;
  /** a game still there joins the table, watched for its exit */
  enter(inst: LaunchedInstance): void;
  keepExit(rec: ExitRecord): void;
  /** a game gone: its log stays readable */
  keepLog(port: number, logFile: string): void;
  warn(text: string): void;
}

/**
 * Re-adopt what launched.json (as read) lists: keep its exit records, take back the games still
 * there, record the games that died while no daemon watched, and end the browser games (they
 * end with their daemon: web-readopt.ts).
 */
export async function readoptFrom(file: LaunchedRead, target: ReadoptTarget, timeoutMs: number): Promise<Readoption> {
  if (file.setAside)
    target.warn(
      `launched.json could not be read; it was kept as ${file.setAside} (games it listed are not re-adopted)`,
    );
  for (const r of file.rejected) target.warn(`launched.json: ignored ${r}`);
  for (const rec of file.exited) if (!target.held(rec.port)) target.keepExit(rec);
  const sorted = await sortForReadoption(
    file.instances.filter((i) => !i.web),
    (port) => target.held(port),
    timeoutMs,
  );
  const aliveAt = file.savedAt ?? new Date().toISOString();
  // Browser games: what is left of them is ended, and they are reported as exited.
  for (const { starting: _starting, ...inst } of file.instances.filter((i) => i.web && !target.held(i.port))) {
    target.keepExit(await endOrphanWebGame(inst, aliveAt));
    sorted.gone.push(inst);
  }
  for (const inst of sorted.adopted) target.enter(inst);
  for (const inst of sorted.gone) target.keepLog(inst.port, inst.logFile);
  for (const inst of sorted.died)
    target.keepExit(exitRecord(inst, { code: null, signal: null, from: 'unknown' }, new Date(), aliveAt));
  return sorted;
}
