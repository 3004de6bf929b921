/**
 * Readiness: wait until a spawned game answers /health ok, or fail loudly (exit before ready,
 * readyTimeoutMs passed, cancelled) after reaping what was spawned. Also names the game once
 * it is up.
 */
import { basename } from 'node:path';
import { GameClient, type Health } from '../game/client.js';
import { launchFailed, type BridgeError, type LaunchFacts } from '../../shared/errors.js';
import type { LaunchDeclaration } from './declaration.js';
import { listenerOwner, portHolders, type PortHolder } from './game-pid.js';
import { tailFile } from './logfile.js';
import { killTree, treeAlive, waitUntil } from './processes.js';
import type { Spawned } from './spawn.js';
import type { LaunchProgress } from './types.js';

/** Lines of the child's own output quoted in a launch failure. */
const FAILURE_TAIL_LINES = 20;
const KILL_WAIT_MS = 2000;

export interface ReadySpec {
  port: number;
  command: string;
  decl: Pick<LaunchDeclaration, 'cwd' | 'name' | 'readyTimeoutMs'>;
  spawned: Spawned;
  /** which launch of several this is, for the error's first line: " (profile client, index 2)" or "" */
  who: string;
  /** HTTP timeout of one /health probe */
  probeTimeoutMs: number;
  signal?: AbortSignal;
  onProgress?: (p: LaunchProgress) => void;
}

/** Kill what a failed launch left running, then build the loud error: command, cwd, log, last output. */
export async function launchFailure(
  spec: ReadySpec,
  what: string,
  exitCode: number | null,
  extra: Omit<LaunchFacts, 'port'> = {},
): Promise<BridgeError> {
  const { port, command, decl, spawned } = spec;
  const pid = spawned.pid;
  if (pid && treeAlive(pid)) {
    await killTree(pid, 'SIGKILL');
    await waitUntil(() => !treeAlive(pid), KILL_WAIT_MS);
  }
  const tail = tailFile(spawned.logFile, FAILURE_TAIL_LINES, { skipHeaders: true }).lines;
  return launchFailed(
    `${what}\nCommand: ${command}\nWorking directory: ${decl.cwd}\nLog: ${spawned.logFile}\nLast output:\n` +
      (tail.length ? tail.join('\n') : '(the process wrote nothing)'),
    { port, exitCode, logFile: spawned.logFile, pid, command, cwd: decl.cwd, ...extra },
  );
}

/** Why the wait is over before the game answered: the words, the exit code and the facts of the failure. */
interface WaitOver {
  what: string;
  exitCode: number | null;
  facts: Omit<LaunchFacts, 'port'>;
}

/** Cancelled, the process gone, or the time up; else undefined. `unseen`: /health answered with no listener seen. */
function waitOver(spec: ReadySpec, elapsed: number, unseen: boolean): WaitOver | undefined {
  const { port, decl, spawned, signal } = spec;
  if (signal?.aborted)
    return {
      what: `Launch cancelled on port ${port}${spec.who}: the request was cancelled before the game answered /health; the process was stopped.`,
      exitCode: null,
      facts: { cancelled: true },
    };
  const exit = spawned.exit();
  if (exit) {
    const how =
      exit.code !== null
        ? `exited with code ${exit.code}`
        : exit.signal
          ? `was killed by signal ${exit.signal}`
          : `could not be started (${exit.spawnError})`;
    // A game whose port was taken after it was chosen exits (a kit cannot listen there) while
    // another process listens on it: the launcher then tries another port, as for a squatter.
    const holders =
      spawned.pid && listenerOwner(port, spawned.pid) === 'stranger' ? portHolders(port, spawned.pid) : undefined;
    return {
      what:
        `Launch failed on port ${port}${spec.who}: the process ${how}.` +
        (holders
          ? ` Another process now holds the port (${describeHolders(holders)}): it was probably taken before the game could bind it.`
          : ''),
      exitCode: exit.code,
      facts: { signal: exit.signal, ...(holders ? { heldBy: holders } : {}) },
    };
  }
  if (elapsed >= decl.readyTimeoutMs)
    return {
      what:
        `Launch failed on port ${port}${spec.who}: the game did not answer /health within ${decl.readyTimeoutMs}ms.` +
        (unseen
          ? ` Something answered /health there, but no process of this machine was seen listening on the port (a game in another network namespace, such as a container, is not seen), so it was not taken for the game.`
          : ''),
      exitCode: null,
      facts: { timeoutMs: decl.readyTimeoutMs },
    };
  return undefined;
}

/** One /health probe, and who answered it: the launched game, a stranger on its port, someone unseen, or no one. */
async function probe(
  spec: ReadySpec,
  client: GameClient,
  elapsed: number,
): Promise<{ by: 'game'; health: Health | undefined } | { by: 'stranger' | 'unseen' | 'nobody' }> {
  const { port, decl, spawned } = spec;
  let health: Health | undefined;
  try {
    health = await client.health(Math.max(50, Math.min(1000, decl.readyTimeoutMs - elapsed)));
  } catch {
    return { by: 'nobody' };
  }
  if (spawned.exit()) return { by: 'nobody' };
  // Whoever answers must be the launched command: the port is in its command line, which every
  // local user can read, and another user may bind it before the game does.
  const owner = spawned.pid ? listenerOwner(port, spawned.pid) : undefined;
  if (owner === 'stranger') return { by: 'stranger' };
  return owner === 'none' ? { by: 'unseen' } : { by: 'game', health };
}

/** The wait's progress line: the seconds so far and the game's latest output (compiling, loading). */
function progress(spec: ReadySpec, t0: number, now: number): LaunchProgress {
  const { port, decl, spawned } = spec;
  const said = tailFile(spawned.logFile, 1, { skipHeaders: true }).lines[0]?.trim().slice(0, 160);
  return {
    elapsedMs: now - t0,
    message: `Waiting for ${decl.name ?? 'the game'} to answer on port ${port}${spec.who} (${Math.round((now - t0) / 1000)}s of ${Math.round(decl.readyTimeoutMs / 1000)}s)${said ? `; last output: ${said}` : ''}`,
  };
}

/** Poll /health with a growing delay until it answers; throws launchFailure's error otherwise. */
export async function waitReady(spec: ReadySpec, client: GameClient): Promise<Health | undefined> {
  const { port, spawned, signal, onProgress } = spec;
  // Wake the wait loop at once on exit or cancel instead of after the next sleep.
  let wake: () => void = () => {};
  const onAbort = () => wake();
  signal?.addEventListener('abort', onAbort);
  void spawned.exited.then(() => wake());
  const t0 = Date.now();
  // /health answered while no listener could be seen on the port (the last probe's finding)
  let unseen = false;
  try {
    let delay = 20;
    let lastProgress = t0;
    for (;;) {
      const over = waitOver(spec, Date.now() - t0, unseen);
      if (over) throw await launchFailure(spec, over.what, over.exitCode, over.facts);
      const found = await probe(spec, client, Date.now() - t0);
      if (found.by === 'game') return found.health;
      if (found.by === 'stranger') {
        const holders = portHolders(port, spawned.pid!);
        throw await launchFailure(
          spec,
          `Launch failed on port ${port}${spec.who}: another process holds the port (${describeHolders(holders)}), not the launched command, so what answered /health there is not the game; the game was stopped. Call launch_instance again: a free port is chosen each time. If the game's command hands the game to a process outside its own process tree (a build tool's daemon), launch the game directly.`,
          null,
          { heldBy: holders },
        );
      }
      if (found.by === 'unseen') unseen = true;
      if (onProgress && Date.now() - lastProgress >= 1000) {
        lastProgress = Date.now();
        onProgress(progress(spec, t0, lastProgress));
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
  } finally {
    signal?.removeEventListener('abort', onAbort);
    wake = () => {};
  }
}

/** "pid 4242 (node) of user nobody", or what can be said when another user's process cannot be seen. */
export function describeHolders(holders: PortHolder[]): string {
  if (!holders.length) return 'another program, or another user';
  return holders
    .map((h) => {
      const who = h.user ?? (h.uid !== undefined ? `uid ${h.uid}` : undefined);
      return `pid ${h.pid}${h.program ? ` (${h.program})` : ''}${who ? ` of user ${who}` : ''}`;
    })
    .join(', ');
}

/** name/version: the game's manifest wins, then /health, then the declaration. */
export async function identify(
  client: GameClient,
  health: Health | undefined,
  decl: Pick<LaunchDeclaration, 'name' | 'dir'>,
): Promise<{ name: string; version: string }> {
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
