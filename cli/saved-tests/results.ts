/** What a saved test's run reports (docs/TESTS.md, "Running"): each step, the failure, the result. */

export interface StepReport {
  line: number;
  text: string;
  ok: boolean;
  ms: number;
}

export interface Failure {
  /** the step's line in the file (0: before any step, e.g. the launch) */
  line: number;
  step: string;
  message: string;
  /**
   * value: an expect did not hold; began-elsewhere: one did not hold in a test recorded on a game that was already
   * running; node-gone: a step's UI node is not in the tree (other failures have none)
   */
  kind?: 'value' | 'began-elsewhere' | 'node-gone';
  /** node-gone: the nearest nodes now, by role and name */
  nearest?: string[];
  condition?: string;
  expected?: string;
  actual?: unknown;
  /** the state around the failure: the parent of the condition's path, or the whole state */
  state?: unknown;
  /** which state `state` is, as the reports name it: the parent's path, or "the whole state" (set with `state`) */
  statePath?: string;
  images?: { baseline: string; actual?: string; diff?: string };
}

/**
 * What a failed check names: its path alone when the condition is the path and the expected
 * value (`game.score equals 5` expecting `equals 5`), so the reports do not say it twice; else
 * the whole condition.
 */
export function checked(f: Pick<Failure, 'condition' | 'expected'>): { label: 'path' | 'condition'; text: string } {
  const { condition = '', expected } = f;
  return expected && condition.endsWith(` ${expected}`)
    ? { label: 'path', text: condition.slice(0, -expected.length - 1) }
    : { label: 'condition', text: condition };
}

/** What a failed check checked, expected and read, one line each, the values aligned (the terminal's form). */
export function checkedLines(f: Failure, show: (v: unknown) => string): string[] {
  const c = checked(f);
  return [
    ...(f.condition ? [`${`${c.label}:`.padEnd(10)} ${c.text}`] : []),
    ...(f.expected !== undefined ? [`expected:  ${f.expected}`] : []),
    ...(f.condition ? [`actual:    ${show(f.actual)}`] : []),
  ];
}

export interface TestResult {
  file: string;
  name: string;
  ok: boolean;
  ms: number;
  steps: StepReport[];
  failure?: Failure;
  /** --update rewrote the file or a baseline */
  updated?: boolean;
  /** steps re-bound to a renamed node (--update, --update=locators): the line, the node before and after */
  rebound?: Array<{ line: number; from: string; to: string }>;
  timing?: string;
  /** it failed, then passed on a retry (--retries): how many retries, and the first failure */
  flaky?: { retries: number; failure: Failure };
  /** the shard that ran it (`2/3`), or the shards, in a merged report (merge-reports) */
  shard?: string;
  /** the trace file written for it (--trace) */
  trace?: string;
  /** --debug: the game left running where the run stopped, its port and simFrame */
  kept?: { port: number; simFrame?: number };
}
