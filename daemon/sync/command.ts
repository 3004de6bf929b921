/**
 * Command sync: send a command, then poll /state until the game reports it applied
 * (`completedCommandId >= commandId`), so the state returned is really after the command.
 *
 * Fallbacks: a game without `completedCommandId` → wait for `frame` to advance by two
 * ("frames-advanced"); `close` → wait for the port to go quiet. A command id belongs to one
 * game process, so a frame going backwards mid-wait fails with CallInterrupted instead of
 * trusting a new process's counter.
 */
import { callInterrupted, commandTimeout, isBridgeError, isTimeout } from '../../shared/errors.js';
import type { GameClient, State } from '../game/client.js';
import { EpochWatch } from './epoch.js';
import { pollDelay } from './poll.js';
import { sleep } from '../../shared/sleep.js';
import { frameOf, summarise, type Summary } from './summary.js';

export type Confirmation = 'completedCommandId' | 'frames-advanced' | 'port-closed' | 'not-waited';

export interface SyncResult extends Summary {
  command: string;
  applied: boolean;
  commandId?: number;
  confirmation: Confirmation;
  /** polls of /state this sync needed (for the benchmark) */
  polls: number;
  state?: State;
}

export interface SyncOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** every frame seen, so caches can notice a restart */
  onFrame?: (frame: number) => void;
  /** false: fire and forget (raw_command sync: false) */
  sync?: boolean;
  /** the port's restart counter (ManifestCache.epoch): a change means another process answers now */
  epoch?: () => number;
}

/** `what` names the interrupted call: "Command 'drop'" or "wait_for ui.screen". */
export function restarted(port: number, what: string, from: number, to: number) {
  return callInterrupted(
    `${what} on port ${port}`,
    `the game restarted while it was pending (frame went from ${from} back to ${to}), so its command id no longer means anything`,
  );
}

export async function commandAndSync(client: GameClient, cmd: string, args: Record<string, unknown>, opts: SyncOptions): Promise<SyncResult> {
  const started = Date.now();
  const ans = await client.command(cmd, args);
  const commandId = typeof ans.commandId === 'number' ? ans.commandId : undefined;
  if (typeof ans.frame === 'number') opts.onFrame?.(ans.frame);
  if (opts.sync === false) {
    return { command: cmd, applied: false, commandId, confirmation: 'not-waited', polls: 0, frame: ans.frame, events: [] };
  }
  if (cmd === 'close') return waitPortQuiet(client, cmd, commandId, started, opts);

  const epoch0 = opts.epoch?.();
  const runs = new EpochWatch(client.port, `Command '${cmd}'`);
  let lastFrame = typeof ans.frame === 'number' ? ans.frame : undefined;
  let baseFrame = lastFrame;
  let polls = 0;
  for (let attempt = 0; ; attempt++) {
    const remaining = opts.timeoutMs - (Date.now() - started);
    if (remaining <= 0) throw commandTimeout(cmd, client.port, opts.timeoutMs, lastFrame !== undefined ? ` (last frame seen: ${lastFrame})` : '');
    if (opts.signal?.aborted) throw callInterrupted(`Command '${cmd}' on port ${client.port}`, 'the request was cancelled while waiting for the game');
    await sleep(Math.min(pollDelay(attempt), remaining), opts.signal);
    let state: State;
    try {
      state = await client.state(opts.signal, Math.max(50, Math.min(client.timeoutMs, opts.timeoutMs - (Date.now() - started))));
    } catch (e) {
      // A game that froze its HTTP thread too: keep trying until our own deadline.
      if (isTimeout(e)) continue;
      throw e;
    }
    polls++;
    const frame = frameOf(state);
    if (frame !== undefined) {
      opts.onFrame?.(frame); // first, so the caches learn of a restart too
      if ((lastFrame !== undefined && frame < lastFrame) || opts.epoch?.() !== epoch0) {
        throw restarted(client.port, `Command '${cmd}'`, lastFrame ?? frame, frame);
      }
      lastFrame = frame;
      if (baseFrame === undefined) baseFrame = frame;
    }
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
    return { command: cmd, applied: true, commandId, confirmation, polls, ...summarise(state), state };
  }
}

/** After `close`: the answer is the port going quiet, not a completion that can never come. */
async function waitPortQuiet(client: GameClient, cmd: string, commandId: number | undefined, started: number, opts: SyncOptions): Promise<SyncResult> {
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
        client.agent.destroy();
        return { command: cmd, applied: true, commandId, confirmation: 'port-closed', polls, events: [] };
      }
    }
  }
}
