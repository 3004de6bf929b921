/**
 * wait_for's `matches` (and a page's WebMCP schema patterns, bridge/page-schema.ts) run in a
 * linear-time engine (RE2's, via re2js), never in V8's
 * backtracking one: the daemon is shared, and one pattern like `^(a+)+$` against a long run of
 * `a`s used to freeze its event loop for every session (and, past the lock's patience, let a
 * second daemon take over). RE2 syntax has no backreferences or lookaround; such a pattern is
 * refused as a usage error that says so.
 *
 * Linear is not cheap enough on its own: RE2 may step every instruction of the compiled program
 * for every character of the text (a pattern like `[\s\S]{1000}` repeated compiles to thousands
 * of instructions). So the program's size is bounded when the pattern is given, and its size
 * times the text's length when a value is matched; past either, the refusal names the limit.
 */
import { RE2JS } from 're2js';
import { usageError } from '../../shared/errors.js';

/** Instructions a compiled pattern may have. */
export const MAX_PROGRAM = 1000;
/** Characters of text times instructions of program one match may cost (a few ms at worst). */
export const MAX_MATCH_WORK = 250_000;

const compiled = new Map<string, RE2JS>();
/** patterns kept compiled (a wait_for polls the same one many times) */
const KEEP = 64;

/** Who gave the pattern, as a refusal names it, and what the person can do about a long text. */
export interface PatternUse {
  what: string;
  fix: string;
}

const MATCHES: PatternUse = {
  what: "wait_for 'matches'",
  fix: 'Give a path to a smaller value, or a shorter pattern.',
};

/** The compiled pattern, or a BridgeUsageError saying what RE2 refused. */
export function linearRegex(source: string, use: PatternUse = MATCHES): RE2JS {
  let re = compiled.get(source);
  if (re) return re;
  try {
    re = RE2JS.compile(source);
  } catch (e) {
    throw usageError(
      `${use.what} is not a valid regular expression for the linear-time engine (RE2 syntax: no backreferences or lookaround): ${(e as Error).message}.`,
    );
  }
  if (re.programSize() > MAX_PROGRAM)
    throw usageError(
      `${use.what} is too large for the shared daemon: it compiles to ${re.programSize()} instructions, over the limit of ${MAX_PROGRAM} (counted repetitions like {1000} cost one instruction per repeat). Use a shorter pattern, or match a part of the value.`,
    );
  if (compiled.size >= KEEP) compiled.delete(compiled.keys().next().value as string);
  compiled.set(source, re);
  return re;
}

/** Does `text` contain a match of `source` (like RegExp.prototype.test)? */
export function matchesText(source: string, text: string, use: PatternUse = MATCHES): boolean {
  const re = linearRegex(source, use);
  const size = re.programSize();
  if (text.length * size > MAX_MATCH_WORK)
    throw usageError(
      `${use.what} would cost too much on the shared daemon: the text is ${text.length} characters and the pattern ${size} instructions, over the limit of ${MAX_MATCH_WORK} characters × instructions (with this pattern, at most ${Math.floor(MAX_MATCH_WORK / size)} characters). ${use.fix}`,
    );
  return re.matcher(text).find();
}
