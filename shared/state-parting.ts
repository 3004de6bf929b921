/**
 * Where two runs of a game part: the first path (in key order) whose value differs between two
 * states, leaving out what differs between any two runs of the same build. `test --compare`
 * asks it of two builds side by side; a restart to a moment asks it of the new build against
 * the states the session's recording kept. One function, so the two never disagree.
 */
import { stateDiff } from './state-diff.js';

/** Paths that differ between any two runs: the wall-clock frame counter. */
export const ALWAYS_IGNORED = ['frame'];
/** Keys that differ between any two runs wherever they are: a held input's lease, counted in wall time. */
const IGNORED_KEYS = new Set(['leaseMsLeft']);

export interface Difference {
  path: string;
  a: unknown;
  b: unknown;
}

/** The first path (in key order) where two states differ, leaving out `ignore` and what always differs. */
export function firstDifference(a: unknown, b: unknown, ignore: string[]): Difference | undefined {
  const c = stateDiff(a, b, { ignore: [...ALWAYS_IGNORED, ...ignore], ignoredKeys: IGNORED_KEYS, max: 1 }).changes[0];
  return c && { path: c.path, a: c.before, b: c.after };
}
