/** Dotted paths into a snapshot: `game.crates.0.x`, `game.crates[0].x`, `ui.screen`. */
import { usageError } from '../../shared/errors.js';

export function splitPath(path: string): string[] {
  const parts = path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((p) => p !== '');
  if (!parts.length) throw usageError(`Bad path '${path}': use dotted keys like ui.screen or game.crates.0.x.`);
  return parts;
}

interface Lookup {
  found: boolean;
  value: unknown;
  /** the deepest prefix that exists, and the value there */
  prefix: string;
  at: unknown;
}

function lookup(obj: unknown, path: string): Lookup {
  let cur: unknown = obj;
  const done: string[] = [];
  for (const key of splitPath(path)) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, key)) {
      return { found: false, value: undefined, prefix: done.join('.'), at: cur };
    }
    cur = (cur as Record<string, unknown>)[key];
    done.push(key);
  }
  return { found: true, value: cur, prefix: done.join('.'), at: cur };
}

export const hasPath = (obj: unknown, path: string): boolean => lookup(obj, path).found;

/** The value at `path`, or undefined when any step is missing. */
export const getPath = (obj: unknown, path: string): unknown => lookup(obj, path).value;

/** Keys present at the deepest existing prefix of `path`, to say what exists when a path misses. */
export function nearestKeys(obj: unknown, path: string): { prefix: string; keys: string[] } {
  const { prefix, at } = lookup(obj, path);
  return { prefix, keys: at !== null && typeof at === 'object' ? Object.keys(at as object).slice(0, 40) : [] };
}
