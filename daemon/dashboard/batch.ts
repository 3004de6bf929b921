/**
 * Which finished calls one feed update carries. Under a flood (hundreds of calls a second) the
 * page cannot show them all and a person cannot read them; drawing each would take the CPU the
 * daemon needs. So an update carries at most `max`: every failure first (the feed's "errors
 * only" view must miss none), then the newest successes, in the order they finished. The
 * daemon's own record keeps every call.
 */
import type { CallSummary } from '../feed/calls.js';

/** Up to `max` of `calls` (oldest first): failures before successes, newest first within each, returned in order. */
export function callsForPage(calls: CallSummary[], max: number): CallSummary[] {
  if (calls.length <= max) return calls;
  const failed = calls.filter((c) => !c.ok).slice(-max);
  const room = max - failed.length;
  const kept = new Set([...failed, ...(room > 0 ? calls.filter((c) => c.ok).slice(-room) : [])]);
  return calls.filter((c) => kept.has(c));
}
