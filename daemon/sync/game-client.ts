/**
 * The library's GameClient (docs/LIBRARY.md): one game's HTTP contract plus the two things the
 * tools add on top of it, a command that waits until the game applied it and a wait for a
 * condition, for a script or a test that drives a game without an agent. The daemon uses the
 * parts (game/client.ts, command.ts, wait.ts) directly.
 */
import { GameClient as ContractClient, type GameClientOptions } from '../game/client.js';
import { commandAndSync, type SyncResult } from './command.js';
import { conditionFrom, waitFor, type Operator, type WaitResult } from './wait.js';

/** What commandAndSync and waitFor wait: this long at most (default 10 s), or until `signal` aborts. */
export interface WaitOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A condition as the wait_for tool takes it: a dotted path and exactly one operator, e.g. `{path: 'ui.screen', equals: 'GameOver'}`. */
export type WaitCondition = { path: string } & { [op in Operator]?: unknown };

const DEFAULT_WAIT_MS = 10_000;

/**
 * A game on one port of 127.0.0.1: `health()`, `state()`, `command()` (fire and forget),
 * `commandAndSync()` (sent, then waited for until the game reports it applied), `waitFor()`,
 * `tools()`, `screenshot()`. Failures are BridgeErrors (GameOffline, CommandRejected,
 * CommandTimeout, …). Call `close()` when done: the client keeps its connections alive.
 *
 * @example
 * const game = new GameClient(7820);
 * const after = await game.commandAndSync('add', { n: 3 });
 * console.log(after.game, after.frame);
 * await game.waitFor({ path: 'game.score', gte: 3 });
 * game.close();
 */
export class SyncingGameClient extends ContractClient {
  constructor(port: number, opts: Pick<GameClientOptions, 'timeoutMs' | 'launchHint'> = {}) {
    super(port, opts);
  }

  /** Sends `cmd` and answers once the game reports it applied, with the state after it (summarised, and whole in `state`). */
  commandAndSync(cmd: string, args: Record<string, unknown> = {}, opts: WaitOptions = {}): Promise<SyncResult> {
    return commandAndSync(this, cmd, args, { timeoutMs: opts.timeoutMs ?? DEFAULT_WAIT_MS, signal: opts.signal });
  }

  /** Reads the state until the condition holds (WaitTimeout with the last value seen when it does not in time). */
  waitFor(condition: WaitCondition, opts: WaitOptions = {}): Promise<WaitResult> {
    return waitFor(this, conditionFrom(condition), {
      timeoutMs: opts.timeoutMs ?? DEFAULT_WAIT_MS,
      signal: opts.signal,
    });
  }
}
