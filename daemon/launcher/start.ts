/**
 * One start: plan the command (profile, port, index), spawn it into its log, wait for
 * /health, name the game and find its own pid. The launcher's table is not touched here;
 * the hooks tell it when the launch is on its way (so launched.json holds it) and when it
 * settled either way.
 */
import { GameClient, type Health } from '../game/client.js';
import type { LocalSurfaces } from '../game/local-surfaces.js';
import { usageError } from '../../shared/errors.js';
import type { HomePaths } from '../../shared/paths.js';
import type { LaunchDeclaration } from './declaration.js';
import { findListener } from './game-pid.js';
import { processStart } from './processes.js';
import { planLaunch } from './profiles.js';
import { identify, launchFailure, waitReady } from './readiness.js';
import { loadExeca, spawnLogged, type Spawned } from './spawn.js';
import type { LaunchedInstance, LaunchOptions } from './types.js';

export interface StartContext {
  paths: HomePaths;
  /** HTTP timeout of the launcher's probes */
  timeoutMs: number;
  /** where a browser game's carrier is served in-process while it runs */
  surfaces: LocalSurfaces;
  /** true once a shutdown's reap began: nothing may be spawned any more */
  closing(): boolean;
  /** the launch was spawned (its log exists) and waits for /health: persist it */
  starting(inst: LaunchedInstance): void;
  /** the launch with this process group answered or failed */
  settled(pgid: number): void;
}

/** A shutdown's reap began: nothing may be spawned any more (checked after the last await before a spawn). */
export function refuseIfClosing(ctx: StartContext, port: number): void {
  if (ctx.closing())
    throw usageError(
      `Launch refused on port ${port}: the bridge is shutting down. Call launch_instance again in a moment.`,
      { port },
    );
}

/** " (profile client, index 2)" for a launch of several or with a profile, else "". */
export function launchLabel(opts: Pick<LaunchOptions, 'profile' | 'index'>): string {
  if (opts.profile === undefined && opts.index === undefined) return '';
  return ` (${opts.profile !== undefined ? `profile ${opts.profile}, ` : ''}index ${opts.index ?? 0})`;
}

/** Start `decl` on `port`; returns once it answers /health, or throws the loud launch failure. */
export async function startGame(
  decl: LaunchDeclaration,
  port: number,
  opts: LaunchOptions,
  ctx: StartContext,
): Promise<{ inst: LaunchedInstance; spawned: Spawned }> {
  if (opts.seed !== undefined)
    throw usageError(
      `launch_instance {seed}: ${decl.file} launches a program, not a page (launch.web); only a page's Math.random and crypto can be seeded by the bridge. Seed the program through its own args or env.`,
    );
  const plan = planLaunch(decl, port, opts);
  const { command } = plan;
  const { execa } = await loadExeca();
  // Checked after the last await before the spawn: a reap that began meanwhile must not miss a game.
  refuseIfClosing(ctx, port);
  const spawned = spawnLogged(execa, {
    command,
    cwd: decl.cwd,
    env: plan.env,
    port,
    logsDir: ctx.paths.logsDir,
    home: ctx.paths.home,
  });
  const { pid: pgid, logFile, startedAt } = spawned;
  const who = launchLabel(opts);
  const ready = {
    port,
    command,
    who,
    decl: { ...decl, readyTimeoutMs: plan.readyTimeoutMs },
    spawned,
    probeTimeoutMs: Math.min(ctx.timeoutMs, 1000),
    signal: opts.signal,
    onProgress: opts.onProgress,
  };
  if (!pgid) {
    const e = await spawned.exited;
    throw await launchFailure(
      ready,
      `Launch failed on port ${port}${who}: the command could not be started (${e.spawnError ?? 'no pid'}).`,
      null,
    );
  }
  const base = {
    port,
    pid: pgid,
    pidStart: processStart(pgid),
    pgid,
    cwd: decl.cwd,
    command,
    logFile,
    startedAt: startedAt.toISOString(),
    owner: opts.owner,
    declaration: decl.file,
    profile: opts.profile,
    index: opts.index,
  };
  const client = new GameClient(port, { timeoutMs: ready.probeTimeoutMs });
  const t0 = Date.now();
  let health: Health | undefined;
  ctx.starting({ ...base, name: decl.name ?? '', version: '', readyInMs: 0, starting: true });
  try {
    health = await waitReady(ready, client);
  } catch (e) {
    ctx.settled(pgid);
    client.close();
    throw e;
  }
  const readyInMs = Date.now() - t0;
  const { name, version } = await identify(client, health, decl);
  client.close();
  ctx.settled(pgid);
  // The game's own pid: the exec'd command, or the process of the tree that listens on the port.
  const pid = findListener(port, pgid) ?? pgid;
  return { inst: { ...base, pid, pidStart: processStart(pid), name, version, readyInMs }, spawned };
}
