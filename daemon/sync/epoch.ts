/**
 * Session epochs (docs/KITS.md, "Playing in time"): a game that starts a new run or level in
 * the same process changes the `sessionEpoch` it publishes. A wait or a command sync that
 * spans such a change fails like one spanning a restart, saying which epochs it saw, because
 * what it was waiting for belonged to the old run.
 */
import { callInterrupted, type BridgeError } from '../../shared/errors.js';
import type { State } from '../game/client.js';

export const sessionEpochOf = (s: State | undefined): number | undefined =>
  typeof s?.sessionEpoch === 'number' ? s.sessionEpoch : undefined;

/** `what` names the interrupted call: "Command 'drop'" or "wait_for game.score". */
export function newRun(port: number, what: string, from: number, to: number): BridgeError {
  return callInterrupted(
    `${what} on port ${port}`,
    `the game started a new run while it was pending (sessionEpoch went from ${from} to ${to})`,
  );
}

/** Remembers the first epoch seen; `check` throws newRun on a later state of another epoch. */
export class EpochWatch {
  private first: number | undefined;

  constructor(
    private readonly port: number,
    private readonly what: string,
  ) {}

  check(state: State): void {
    const e = sessionEpochOf(state);
    if (e === undefined) return;
    if (this.first === undefined) this.first = e;
    else if (e !== this.first) throw newRun(this.port, this.what, this.first, e);
  }
}
