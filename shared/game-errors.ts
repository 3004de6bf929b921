/**
 * A game's errors as the bridge keeps them: one entry per distinct error, repeats counted rather
 * than repeated, each numbered so a reader asks for what is new since the last number it saw.
 * The daemon fills a book per game (from the game's output, its kit's /errors and its page);
 * answers, get_errors, the errors resource and saved tests read it.
 */
import { isBridgeError } from './errors.js';

/**
 * Where an error was seen: `command` (a command's apply threw, caught by the kit), `tick` (the
 * game's frame threw, caught by the kit), `output` (the game printed it: a traceback, Godot's
 * SCRIPT ERROR…), `page` (a page's uncaught error) or `console` (a page's console.error).
 */
export type ErrorSource = 'command' | 'tick' | 'output' | 'page' | 'console';

/** One error as answers carry it (a type, not an interface: answers are open records). */
export type GameError = {
  /** its number in the game's book: `since` asks for errors whose last sighting is past it */
  seq: number;
  /** the frame it was raised at; for output, the nearest known: the last frame the bridge saw when it read it; null when none */
  frame: number | null;
  message: string;
  stack?: string;
  source: ErrorSource;
  /** how many times it was seen */
  count: number;
  /** the frame of its latest sighting, when it was seen more than once */
  lastFrame?: number | null;
};

/** What a reader reports of one sighting. */
export interface ErrorSighting {
  frame: number | null;
  message: string;
  stack?: string;
  source: ErrorSource;
}

/** Distinct errors kept per game; the oldest go first beyond it. */
export const ERRORS_KEPT = 200;
/** A message or a stack past this is cut: the answer stays readable, the log keeps the rest. */
const MAX_MESSAGE_CHARS = 500;
const MAX_STACK_CHARS = 2000;

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** One game's errors: distinct ones kept once with a count, numbered in the order last seen. */
export class ErrorBook {
  private readonly entries = new Map<string, GameError>();
  private last = 0;

  /** The number of the latest sighting (0 before any). */
  get seq(): number {
    return this.last;
  }

  /** How many sightings in all, repeats included. */
  get total(): number {
    let n = 0;
    for (const e of this.entries.values()) n += e.count;
    return n;
  }

  /** Notes one sighting: a new entry, or one more of the same (same source, message and first stack line). */
  add(s: ErrorSighting): GameError {
    const message = cut(s.message.trim() || 'error', MAX_MESSAGE_CHARS);
    const stack = s.stack?.trim() ? cut(s.stack.trim(), MAX_STACK_CHARS) : undefined;
    const key = `${s.source}\n${message}\n${stack?.split('\n')[0] ?? ''}`;
    const seq = ++this.last;
    const seen = this.entries.get(key);
    if (seen) {
      this.entries.delete(key); // re-inserted: the map stays in the order errors were last seen
      const again: GameError = { ...seen, seq, count: seen.count + 1, lastFrame: s.frame };
      this.entries.set(key, again);
      return again;
    }
    const entry: GameError = { seq, frame: s.frame, message, ...(stack ? { stack } : {}), source: s.source, count: 1 };
    this.entries.set(key, entry);
    if (this.entries.size > ERRORS_KEPT) this.entries.delete(this.entries.keys().next().value as string);
    return entry;
  }

  /** The errors last seen after `since` (all of them for 0), oldest first. */
  since(since = 0): GameError[] {
    return [...this.entries.values()].filter((e) => e.seq > since);
  }
}

/** An error in one line, as a person reads it: "TypeError: x is undefined at frame 1204 (output, 3 times)". */
export function describeError(e: GameError): string {
  const at = e.frame === null ? '' : ` at frame ${e.frame}`;
  const times = e.count > 1 ? `, ${e.count} times` : '';
  return `${e.message.split('\n')[0]}${at} (${e.source}${times})`;
}

/** A call that failed: its facts carry the errors it raised, and its text names the first. */
export function withErrors(e: unknown, errors: GameError[]): unknown {
  if (!errors.length || !isBridgeError(e)) return e;
  Object.assign(e.data, { errors });
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more: get_errors lists them)` : '';
  e.message += ` The game threw ${describeError(errors[0]!)}${more}.`;
  return e;
}

/** The errors a failure carries (withErrors), or none. */
export function errorsOf(e: unknown): GameError[] {
  const errors = isBridgeError(e) ? (e.data as { errors?: unknown }).errors : undefined;
  return Array.isArray(errors) ? (errors as GameError[]) : [];
}

/**
 * Does a pattern permit this error? A pattern is a regular expression over the message (a
 * `/…/flags` literal or bare text, which then matches as a case-sensitive regular expression).
 */
export function errorAllowed(e: Pick<GameError, 'message'>, patterns: readonly string[]): boolean {
  return patterns.some((p) => patternOf(p).test(e.message));
}

function patternOf(p: string): RegExp {
  const literal = /^\/(.+)\/([a-z]*)$/.exec(p);
  try {
    return literal ? new RegExp(literal[1]!, literal[2]) : new RegExp(p);
  } catch {
    return new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  }
}
