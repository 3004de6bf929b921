/** Dotted paths into a game's state, as get_state and a test's conditions name them: `game.crates.0.x`. */

/** The value at a dotted path (`game.crates.0.x`, `game.crates[0].x`), and whether it is there. */
export function valueAt(state: unknown, path: string): { found: boolean; value?: unknown } {
  let cur = state;
  for (const key of path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean)) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, key))
      return { found: false };
    cur = (cur as Record<string, unknown>)[key];
  }
  return { found: true, value: cur };
}

/** A path's parent (`game.crates.0` of `game.crates.0.x`), or undefined at the top. */
export const parentPath = (path: string) => {
  const parent = path.replace(/(\.|\[)[^.[]*\]?$/, '');
  return parent && parent !== path ? parent : undefined;
};
