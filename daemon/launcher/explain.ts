/**
 * A call that failed on a port whose launched game has exited fails with GameExited instead:
 * the facts of the exit (how, when, after how long, the last command, the last output) and
 * the next step, never a bare GameOffline. Used where every tool's failure passes (the session).
 */
import { isBridgeError, type BridgeError } from '../../shared/errors.js';
import { exitedError } from './exits.js';
import type { Launcher } from './launcher.js';

/** A refused connection on a launched game's port: its exit is noticed a moment after the port closes. */
const REFUSED_NOTICE_MS = 1000;

/** Failures that a dead game explains (what a live but stuck game would also give is only checked, not waited for). */
const EXPLAINABLE = new Set(['GameOffline', 'CommandTimeout', 'CallInterrupted', 'NotAGameSurface']);

/** `e`, or the GameExited error of the game it addressed if that game has exited. */
export async function explainExit(launcher: Launcher, e: unknown): Promise<unknown> {
  if (!isBridgeError(e) || !EXPLAINABLE.has(e.kind) || typeof e.data.port !== 'number') return e;
  const refused = e.kind === 'GameOffline' && !e.data.timeout;
  const rec = await launcher.exitOf(e.data.port, refused ? REFUSED_NOTICE_MS : 0);
  return rec ? exitedError(rec) : (e as BridgeError);
}
