/**
 * How two game states differ, path by path: what `test --compare` reports (the first path where
 * two builds part) and what a trace shows under each step (every path the step changed). Objects
 * are walked key by key (sorted), arrays index by index; a leaf that differs, a key that came or
 * went, and a value whose kind changed are each one change. Bounded: past `max` changes the rest
 * are counted, not listed.
 */

export interface Change {
  /** dotted, as get_state takes it (`game.crates.0.x`); `(the whole state)` for the root */
  path: string;
  /** absent: the path was not there before */
  before?: unknown;
  /** absent: the path is gone */
  after?: unknown;
}

export interface DiffOptions {
  /** paths left out, with everything below them */
  ignore?: string[];
  /** keys left out wherever they are (a counter that differs on every run) */
  ignoredKeys?: ReadonlySet<string>;
  /** list at most this many (default 200); the rest are counted in `more` */
  max?: number;
}

export interface Diff {
  changes: Change[];
  /** changes past `max`, not listed */
  more: number;
}

const isObj = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object';

export function stateDiff(a: unknown, b: unknown, opts: DiffOptions = {}): Diff {
  const max = opts.max ?? 200;
  const out: Diff = { changes: [], more: 0 };
  const add = (c: Change) => (out.changes.length < max ? out.changes.push(c) : out.more++);
  const walk = (x: unknown, y: unknown, at: string[], hasX: boolean, hasY: boolean) => {
    const path = at.join('.');
    if (opts.ignore?.some((p) => path === p || path.startsWith(`${p}.`))) return;
    if (at.length && opts.ignoredKeys?.has(at[at.length - 1])) return;
    if (!hasX || !hasY) {
      if (hasX !== hasY) add({ path, ...(hasX ? { before: x } : {}), ...(hasY ? { after: y } : {}) });
      return;
    }
    if (!isObj(x) || !isObj(y) || Array.isArray(x) !== Array.isArray(y)) {
      if (!(Object.is(x, y) || JSON.stringify(x) === JSON.stringify(y)))
        add({ path: path || '(the whole state)', before: x, after: y });
      return;
    }
    const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])];
    if (!Array.isArray(x)) keys.sort();
    for (const k of keys) {
      if (max === 1 && out.changes.length) return;
      walk(x[k], y[k], [...at, k], Object.hasOwn(x, k), Object.hasOwn(y, k));
    }
  };
  walk(a, b, [], true, true);
  return out;
}
