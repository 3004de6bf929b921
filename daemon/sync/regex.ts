/**
 * wait_for's `matches` runs in a linear-time engine (RE2's, via re2js), never in V8's
 * backtracking one: the daemon is shared, and one pattern like `^(a+)+$` against a long run of
 * `a`s used to freeze its event loop for every session (and, past the lock's patience, let a
 * second daemon take over). RE2 syntax has no backreferences or lookaround; such a pattern is
 * refused as a usage error that says so.
 */
import { RE2JS } from 're2js';
import { usageError } from '../../shared/errors.js';

const compiled = new Map<string, RE2JS>();
/** patterns kept compiled (a wait_for polls the same one many times) */
const KEEP = 64;

/** The compiled pattern, or a BridgeUsageError saying what RE2 refused. */
export function linearRegex(source: string): RE2JS {
  let re = compiled.get(source);
  if (re) return re;
  try {
    re = RE2JS.compile(source);
  } catch (e) {
    throw usageError(
      `wait_for 'matches' is not a valid regular expression for the linear-time engine (RE2 syntax: no backreferences or lookaround): ${(e as Error).message}.`,
    );
  }
  if (compiled.size >= KEEP) compiled.delete(compiled.keys().next().value as string);
  compiled.set(source, re);
  return re;
}

/** Does `text` contain a match of `source` (like RegExp.prototype.test)? */
export function matchesText(source: string, text: string): boolean {
  return linearRegex(source).matcher(text).find();
}
