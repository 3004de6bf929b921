/**
 * One expect step of a saved test checked against the running game (docs/TESTS.md, "`expect` steps"):
 * a screenshot against its baseline, or a condition asserted at the step's frame (frame-exact)
 * or waited for (real time). A failure carries the condition, expected and actual and the state
 * around it; under --update, the step as the game now answers it.
 */
import { ASSERTION_NEXT_STEP, assertionFailed } from '../../shared/errors.js';
import {
  baselinePath,
  conditionText,
  isScreenshot,
  operatorOf,
  type Condition,
  type ExpectStep,
  type TestFile,
} from '../../shared/test-file.js';
import { ToolFailed } from './driver.js';
import type { Game } from './game.js';
import type { Failure } from './results.js';
import { checkScreenshot } from './screenshot.js';

const parentOf = (path: string) => path.replace(/(\.|\[)[^.[]*\]?$/, '');

type ExpectOutcome = Omit<Failure, 'line' | 'step'> | { replace: ExpectStep } | undefined;

/** Check one expect; a failure's facts, a replacement (--update), or nothing when it held. */
export async function checkExpect(
  game: Game,
  t: TestFile,
  s: ExpectStep,
  opts: { update?: boolean | 'locators'; timeoutMs?: number },
): Promise<ExpectOutcome> {
  const e = s.expect;
  if (isScreenshot(e)) {
    const png = await game.driver.screenshot(game.port);
    const r = checkScreenshot(png, baselinePath(t, e.screenshot), e.maxDiffRatio, opts.update === true);
    if (r.ok) return r.written ? { replace: s } : undefined;
    return {
      kind: 'value',
      message: `screenshot ${e.screenshot}: ${r.detail}`,
      condition: `screenshot ${e.screenshot} within ${e.maxDiffRatio}`,
      expected: `at most ${(e.maxDiffRatio * 100).toFixed(2)}% of the pixels differ`,
      actual: r.ratio === undefined ? r.detail : `${(r.ratio * 100).toFixed(2)}% differ`,
      images: { baseline: r.baseline, actual: r.actual, diff: r.diff },
    };
  }
  const c = e as Condition;
  const { op, operand } = operatorOf(c);
  try {
    if (game.frameExact) await game.driver.game(game.port, 'bridge.assert', { ...c });
    else
      await game.driver.game(game.port, 'bridge.wait_for', { ...c, timeoutMs: s.timeoutMs ?? opts.timeoutMs ?? 5000 });
    return undefined;
  } catch (err) {
    if (!(err instanceof ToolFailed)) throw err;
    const facts = err.facts;
    const actual = 'actual' in facts ? facts.actual : 'lastValue' in facts ? facts.lastValue : undefined;
    // only plain --update rewrites a value: --update=locators reports it, for a person to judge
    if (opts.update === true && (facts.kind === 'AssertionFailed' || facts.kind === 'CommandTimeout')) {
      return { replace: { ...s, expect: { path: c.path, equals: actual ?? null } as ExpectStep['expect'] } };
    }
    const statePath = parentOf(c.path) === c.path ? undefined : parentOf(c.path);
    const expected = `${op}${op === 'exists' && operand === true ? '' : ' ' + JSON.stringify(operand)}`;
    // A real-time expect waits for its value, so a value that is just different ends the wait:
    // it is reported as the assertion it is, not as a wait to lengthen.
    const failed =
      facts.kind === 'CommandTimeout' && facts.path === c.path
        ? assertionFailed(game.port, c.path, expected, actual, facts.frame as number | undefined).text
        : err.text;
    return {
      kind: 'value',
      // the run ends with its own next step (--update), not the agent's
      message: failed.replace(` ${ASSERTION_NEXT_STEP}`, ''),
      condition: conditionText(c),
      expected,
      actual: actual ?? null,
      state: await game.stateAt(statePath),
      statePath: statePath ?? 'the whole state',
    };
  }
}
