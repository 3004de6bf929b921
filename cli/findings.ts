/** What `doctor` found, one line each, and how they are printed. */
import { printable } from './printable.js';

export type Level = 'ok' | 'note' | 'problem';

/** One finding: what was seen, and for a problem the fix. */
export interface Finding {
  level: Level;
  what: string;
  fix?: string;
}

const MARK: Record<Level, string> = { ok: '✔', note: '·', problem: '✖' };

/** Print each finding (its fix indented below it) and a last line; answers how many were problems. */
export function printFindings(findings: Finding[], out: (line: string) => void): number {
  for (const x of findings) {
    // findings quote registry entries and files any local process may have written
    out(`${MARK[x.level]} ${printable(x.what)}`);
    if (x.fix) out(`    fix: ${printable(x.fix)}`);
  }
  const problems = findings.filter((x) => x.level === 'problem').length;
  out(problems ? `${problems} problem(s) found.` : 'No problems found.');
  return problems;
}
