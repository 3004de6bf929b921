/**
 * Adaptive polling. A command is applied on the game's next tick, so the first polls come
 * fast and later ones back off so a slow or paused game is not flooded. Every 5 ms for the
 * first 25 ms (a 60 fps tick is seen within ~5 ms whatever its phase; 9 ms made back-to-back
 * steps lock onto ~14 or ~23 ms by the phase alone), then every 9 ms, under two polls a frame.
 * wait_for starts at the third entry (its first poll is immediate). (A 2 ms first poll was
 * almost always too early for a game that applies commands on its next tick: docs/PERFORMANCE.md.)
 */
import type { GameClient, State } from '../game/client.js';

export const POLL_SCHEDULE_MS = [5, 5, 5, 5, 5, 9, 9, 9, 9, 9, 9, 9];
export const POLL_BACKOFF_FACTOR = 1.5;
export const POLL_MAX_MS = 100;

/** The pause before poll number `attempt` (from 0): the schedule, then a backoff capped at POLL_MAX_MS. */
export function pollDelay(attempt: number): number {
  if (attempt < POLL_SCHEDULE_MS.length) return POLL_SCHEDULE_MS[attempt];
  const extra = attempt - POLL_SCHEDULE_MS.length + 1;
  return Math.min(POLL_MAX_MS, Math.round(9 * Math.pow(POLL_BACKOFF_FACTOR, extra)));
}

/**
 * One poll of /state within what is left of a call's budget (`timeoutMs` since `started`): the
 * client's own timeout at most, 50 ms at least (a poll shorter than that could never succeed).
 */
export function pollState(
  client: GameClient,
  signal: AbortSignal | undefined,
  started: number,
  timeoutMs: number,
): Promise<State> {
  return client.state(signal, Math.max(50, Math.min(client.timeoutMs, timeoutMs - (Date.now() - started))));
}
