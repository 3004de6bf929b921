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

export function hasPath(obj: unknown, path: string): boolean {
  let cur: unknown = obj;
  for (const key of splitPath(path)) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, key)) return false;
    cur = (cur as Record<string, unknown>)[key];
  }
  return true;
}

/** The value at `path`, or undefined when any step is missing. */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const key of splitPath(path)) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** Keys present at the deepest existing prefix of `path`, to say what exists when a path misses. */
export function nearestKeys(obj: unknown, path: string): { prefix: string; keys: string[] } {
  let cur: unknown = obj;
  const done: string[] = [];
  for (const key of splitPath(path)) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, key)) break;
    cur = (cur as Record<string, unknown>)[key];
    done.push(key);
  }
  const keys = cur !== null && typeof cur === 'object' ? Object.keys(cur as object).slice(0, 40) : [];
  return { prefix: done.join('.'), keys };
}
