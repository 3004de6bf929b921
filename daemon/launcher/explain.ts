/**
 * A call that failed on a port whose launched game has exited fails with GameExited instead:
 * the facts of the exit (how, when, after how long, the last command, the last output) and
 * the next step, never a bare GameOffline. Used where every tool's failure passes (the session).
 */
import { isBridgeError, isTimeout } from '../../shared/errors.js';
import { errorsOf, withErrors } from '../../shared/game-errors.js';
import { exitedError } from './exit-records.js';
import type { Launcher } from './launcher.js';

/** A refused connection on a launched game's port: its exit is noticed a moment after the port closes. */
const REFUSED_NOTICE_MS = 1000;

/** The port a failure that a dead game would explain was about (what a stuck game also gives is only checked, not waited for). */
function portOf(e: unknown): number | undefined {
  if (!isBridgeError(e)) return undefined;
  const d = e.data;
  return d.kind === 'GameOffline' || d.kind === 'CommandTimeout' || d.kind === 'NotAGameSurface' ? d.port : undefined;
}

/** `e`, or the GameExited error of the game it addressed if that game has exited. */
export async function explainExit(launcher: Launcher, e: unknown): Promise<unknown> {
  const port = portOf(e);
  if (port === undefined) return e;
  const refused = isBridgeError(e) && e.kind === 'GameOffline' && !isTimeout(e);
  const rec = await launcher.exitOf(port, refused ? REFUSED_NOTICE_MS : 0);
  // what the game threw before it went, as the failure it explains had read it
  return rec ? withErrors(exitedError(rec), errorsOf(e)) : e;
}
