/** What a mistyped name most likely meant, for errors that name the near one (UI refs, flags, keys). */

/** Edit distance; callers bound their inputs (ids, names, flags and keys are short). */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/** The one of `known` closest to `word`, when it is within a third of the longer (two edits at least); else undefined. */
export function nearest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(word.toLowerCase(), k.toLowerCase());
    if (d < bestD && d <= Math.max(2, Math.floor(Math.max(word.length, k.length) / 3))) [best, bestD] = [k, d];
  }
  return best;
}
