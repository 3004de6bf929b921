/**
 * An input held for N of the game's frames on a running clock (press, and the gestures between
 * their moves): the bridge waits while the game runs them. Unlike wait_for, the count goes on
 * across a new run: the input may well be what started it (a Start key, a Play button). A
 * frame count the new run starts again from 0 is counted from there; a restarted process still
 * fails the wait, as it fails every call that spans it.
 */
import { usageError, waitTimeout } from '../../shared/errors.js';
import type { GameClient, State } from '../game/client.js';
import { ProcessWatch } from './command.js';
import { getPath } from './path.js';
import { pollUntil } from './wait.js';

export interface FrameWaitOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** the game process's generation: a change means another process answers */
  generation?: () => number;
}

/** Frames run since a start, read at `path` (simFrame, or frame): `until(n)` waits for the n-th. */
export class FrameCount {
  private last: number;
  private ran = 0;
  private readonly watch: ProcessWatch;

  constructor(
    private readonly client: GameClient,
    private readonly path: string,
    from: number,
    private readonly opts: FrameWaitOptions,
  ) {
    this.last = from;
    this.watch = new ProcessWatch(client.port, `waiting for ${path}`, opts.generation);
  }

  /** Resolves with the state once `frames` frames ran since the start. */
  until(frames: number): Promise<State> {
    const { client, opts } = this;
    return pollUntil(client, this.watch, opts, {
      seen: (state) => {
        const v = getPath(state, this.path);
        if (typeof v === 'number') {
          this.ran += v >= this.last ? v - this.last : v;
          this.last = v;
        }
        return this.ran >= frames ? state : undefined;
      },
      timedOut: () =>
        waitTimeout(client.port, this.path, `to run ${frames} frames`, opts.timeoutMs, this.last, this.watch.frame),
      cancelled: () => usageError('The input was cancelled while the game ran its frames.'),
    });
  }
}
