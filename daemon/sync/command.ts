/**
 * Command sync: send a command, then poll /state until the game reports it applied
 * (`completedCommandId >= commandId`), so the state returned is really after the command.
 *
 * Fallbacks: a game without `completedCommandId` → wait for `frame` to advance by two
 * ("frames-advanced"); `close` → wait for the port to go quiet. A command id belongs to one
 * game process, so a new process mid-wait fails with CallInterrupted instead of trusting its
 * counter. What counts as a new process here: a frame lower than one this call already saw
 * (its requests go one after another, so the same process can only show more), or the port's
 * generation changing (another pid, the launcher starting or losing the game). Never another
 * call's reply: under concurrency those arrive in any order (game/restarts.ts).
 */
import { callInterrupted, commandFailed, commandTimeout, isBridgeError, isTimeout } from '../../shared/errors.js';
import type { GameClient, State } from '../game/client.js';
import type { GameError } from '../../shared/game-errors.js';
import { EpochWatch } from './epoch.js';
import { pollDelay, pollState } from './poll.js';
import { sleep } from '../../shared/sleep.js';
import { frameOf, summarise, type Summary } from './summary.js';

export type Confirmation = 'completedCommandId' | 'frames-advanced' | 'port-closed' | 'not-waited' | 'browser';

export interface SyncResult extends Summary {
  command: string;
  applied: boolean;
  commandId?: number;
  confirmation: Confirmation;
  /** polls of /state this sync needed (for the benchmark) */
  polls: number;
  state?: State;
  /** the game's `player` section, in place of `game` for a player-view session */
  player?: unknown;
  /** the game's errors raised during the call (filled by the caller, which keeps each game's errors) */
  errors?: GameError[];
}

export interface SyncOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** false: fire and forget (raw_command sync: false) */
  sync?: boolean;
  /** the port's process generation (RestartWatch.generation): a change means another process answers now */
  generation?: () => number;
  /** told each frame the call sees, so a caller knows the last one even when the call fails */
  onFrame?: (frame: number) => void;
}

/**
 * One call's view of its game process: the frames its own requests saw, in order, and the
 * port's generation when it started. `check` throws CallInterrupted when another process
 * answers now; `what` names the call: "Command 'drop'" or "wait_for ui.screen".
 */
export class ProcessWatch {
  private lastFrame?: number;
  private readonly generation0?: number;

  constructor(
    private readonly port: number,
    private readonly what: string,
    private readonly generation?: () => number,
    firstFrame?: number,
  ) {
    this.generation0 = generation?.();
    this.lastFrame = firstFrame;
  }

  get frame(): number | undefined {
    return this.lastFrame;
  }

  /** A reply this call received (after the previous one): same process, or CallInterrupted. */
  check(frame: number | undefined): void {
    let why: string | undefined;
    if (frame !== undefined && this.lastFrame !== undefined && frame < this.lastFrame)
      why = `frame went from ${this.lastFrame} back to ${frame}`;
    else if (this.generation && this.generation() !== this.generation0)
      why = 'another process now answers on the port: its pid changed, or it was relaunched';
    if (why)
      throw callInterrupted(
        `${this.what} on port ${this.port}`,
        `the game restarted while it was pending (${why}), so its command id no longer means anything`,
      );
    if (frame !== undefined) this.lastFrame = frame;
  }
}

export async function commandAndSync(
  client: GameClient,
  cmd: string,
  args: Record<string, unknown>,
  opts: SyncOptions,
): Promise<SyncResult> {
  const started = Date.now();
  const ans = await client.command(cmd, args);
  const commandId = typeof ans.commandId === 'number' ? ans.commandId : undefined;
  if (opts.sync === false) {
    return {
      command: cmd,
      applied: false,
      commandId,
      confirmation: 'not-waited',
      polls: 0,
      frame: ans.frame,
      events: [],
    };
  }
  if (cmd === 'close') return waitPortQuiet(client, cmd, commandId, started, opts);

  const watch = new ProcessWatch(
    client.port,
    `Command '${cmd}'`,
    opts.generation,
    typeof ans.frame === 'number' ? ans.frame : undefined,
  );
  let baseFrame = watch.frame;
  if (baseFrame !== undefined) opts.onFrame?.(baseFrame);
  const runs = new EpochWatch(client.port, `Command '${cmd}'`);
  let polls = 0;
  for (let attempt = 0; ; attempt++) {
    const remaining = opts.timeoutMs - (Date.now() - started);
    if (remaining <= 0)
      throw commandTimeout(
        cmd,
        client.port,
        opts.timeoutMs,
        watch.frame !== undefined ? ` (last frame seen: ${watch.frame})` : '',
      );
    if (opts.signal?.aborted)
      throw callInterrupted(
        `Command '${cmd}' on port ${client.port}`,
        'the request was cancelled while waiting for the game',
      );
    await sleep(Math.min(pollDelay(attempt), remaining), opts.signal);
    let state: State;
    try {
      state = await pollState(client, opts.signal, started, opts.timeoutMs);
    } catch (e) {
      // A game that froze its HTTP thread too: keep trying until our own deadline.
      if (isTimeout(e)) continue;
      throw e;
    }
    polls++;
    const frame = frameOf(state);
    watch.check(frame);
    if (frame !== undefined) opts.onFrame?.(frame);
    if (baseFrame === undefined) baseFrame = frame;
    const completed = state.completedCommandId;
    if (typeof completed === 'number' && commandId !== undefined) {
      // The state that completes the command may be in a new run of its own making (`start`);
      // a new run before it means the command is now pending in another run.
      if (completed >= commandId) return done(state, 'completedCommandId');
      runs.check(state);
      continue;
    }
    runs.check(state);
    // No completedCommandId published (or no id given): two frames later the command has been applied.
    if (frame !== undefined && baseFrame !== undefined && frame >= baseFrame + 2) return done(state, 'frames-advanced');
  }

  function done(state: State, confirmation: Confirmation): SyncResult {
    const failure = commandId !== undefined ? failureOf(state, commandId) : undefined;
    if (failure !== undefined) {
      const epoch = state.sessionEpoch;
      throw commandFailed({
        port: client.port,
        cmd,
        commandId: commandId!,
        reason: failure,
        ...(typeof epoch === 'number' ? { sessionEpoch: epoch } : {}),
        ...summarise(state),
      });
    }
    return { command: cmd, applied: true, commandId, confirmation, polls, ...summarise(state), state };
  }
}

/**
 * The game's own words when its `commandResults` say the command `id` failed; undefined when it
 * succeeded or the game publishes no result for it (then completion is all there is to know).
 */
export function failureOf(state: State, id: number): string | undefined {
  const results = state.commandResults;
  if (!Array.isArray(results)) return undefined;
  for (let i = results.length - 1; i >= 0; i--) {
    const r = results[i] as { id?: unknown; ok?: unknown; error?: unknown } | null;
    if (!r || typeof r !== 'object' || r.id !== id) continue;
    if (r.ok !== false) return undefined;
    return typeof r.error === 'string' ? r.error.slice(0, 500) : '';
  }
  return undefined;
}

/** After `close`: the answer is the port going quiet, not a completion that can never come. */
async function waitPortQuiet(
  client: GameClient,
  cmd: string,
  commandId: number | undefined,
  started: number,
  opts: SyncOptions,
): Promise<SyncResult> {
  let polls = 0;
  for (let attempt = 0; ; attempt++) {
    const remaining = opts.timeoutMs - (Date.now() - started);
    if (remaining <= 0) throw commandTimeout(cmd, client.port, opts.timeoutMs, ' (the port still answers /health)');
    await sleep(Math.min(Math.max(pollDelay(attempt), 20), remaining), opts.signal);
    polls++;
    try {
      await client.health(Math.min(1000, remaining));
    } catch (e) {
      if (isBridgeError(e) && e.kind === 'GameOffline' && !isTimeout(e)) {
        client.close(); // its sockets go with the game; a later call opens new ones
        return { command: cmd, applied: true, commandId, confirmation: 'port-closed', polls, events: [] };
      }
    }
  }
}
