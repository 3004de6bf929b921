/**
 * One saved test, replayed with no agent (docs/TESTS.md, "Running"): its game launched fresh
 * through the daemon, on a clock-capable game paused at once and stepped to each step's
 * recorded simFrame (frame-exact), otherwise in real time with the recorded gaps; every expect
 * checked; the game stopped after, whatever happened. The result says, for a failure, the step,
 * the condition, expected and actual, and the state around it.
 */
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { inside } from '../../shared/declaration-path.js';
import { ASSERTION_NEXT_STEP, assertionFailed, isBridgeError } from '../../shared/errors.js';
import { writeProjectFile } from '../../shared/project-files.js';
import {
  baselinePath,
  conditionText,
  formatTest,
  isScreenshot,
  operatorOf,
  readTestFile,
  testProject,
  testRelative,
  type Condition,
  type DoStep,
  type ExpectStep,
  type TestFile,
} from '../../shared/test-file.js';
import { openDriver, ToolFailed, type Driver, type Json } from './driver.js';
import { Game, launchFor, placeInTime } from './game.js';
import { callStep, NodeGone } from './locators.js';

export { Game, launchFor, placeInTime };
import { checkScreenshot } from './screenshot.js';
import type { TestTrace } from './trace.js';

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
  /** value: an expect did not hold; node-gone: a step's UI node is not in the tree (other failures have none) */
  kind?: 'value' | 'node-gone';
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
}

export interface ReplayOptions {
  /** another gamebridge.json than the header's (a path from the working directory) */
  config?: string;
  /** true: rewrite expected values, baselines and renamed nodes; 'locators': renamed nodes only */
  update?: boolean | 'locators';
  /** a real-time expect waits this long by default */
  timeoutMs?: number;
  /** Ctrl-C: the replay ends at its next step and stops its game */
  signal?: AbortSignal;
  /** --trace: every step, with the state and screenshot after it, goes into this trace */
  trace?: TestTrace;
}

/** The bridge's own clock tools: a frame-exact replay holds the clock itself (a game's own pause is replayed). */
export const CLOCK_TOOLS = new Set(['bridge.pause', 'bridge.resume']);

/** A step as one line of a report: `drop {"x":40} @948`, `expect game.score gte 40`. */
export function stepText(s: DoStep | ExpectStep): string {
  if ('do' in s) {
    const args = Object.keys(s.arguments).length ? ` ${JSON.stringify(s.arguments)}` : '';
    return `${s.name}${args}${s.atSimFrame !== undefined ? ` @${s.atSimFrame}` : ''}`;
  }
  const e = s.expect;
  return isScreenshot(e) ? `expect screenshot ${e.screenshot}` : `expect ${conditionText(e as Condition)}`;
}

const parentOf = (path: string) => path.replace(/(\.|\[)[^.[]*\]?$/, '');

export async function replayFile(file: string, opts: ReplayOptions = {}): Promise<TestResult> {
  const t0 = Date.now();
  let t: TestFile;
  try {
    t = readTestFile(file);
  } catch (e) {
    return fail(file, relative(process.cwd(), file) || file, t0, [], {
      line: 0,
      step: 'read the file',
      message: msg(e),
    });
  }
  const config = opts.config ?? testRelative(t, t.header.launch.config);
  const steps: StepReport[] = [];
  let driver: Driver | undefined;
  let game: Game | undefined;
  const rewritten: Array<DoStep | ExpectStep> = [];
  const rebound: NonNullable<TestResult['rebound']> = [];
  let updated = false;
  const launchStep = `launch ${config}${t.header.launch.profile ? ` (profile ${t.header.launch.profile})` : ''}`;
  // a header names what to launch only inside its own project, as launch_instance {config} does
  const project = testProject(t);
  if (!opts.config && !inside(project, config))
    return fail(file, t.header.name, t0, steps, {
      line: 1,
      step: launchStep,
      message: `BridgeUsageError: the header's launch.config ${config} is outside the test's project (${project}); nothing was launched. Name a gamebridge.json inside the project, or pass --config.`,
    });
  if (!existsSync(config))
    return fail(file, t.header.name, t0, steps, {
      line: opts.config ? 0 : 1,
      step: launchStep,
      message: `BridgeUsageError: there is no ${config}${opts.config ? ' (--config)' : " (the header's launch.config, relative to the test file)"}.`,
    });
  try {
    driver = await openDriver(config);
    try {
      game = await launchFor(t, driver);
      await opts.trace?.launched(game, config, t.header.launch.profile);
    } catch (e) {
      return fail(file, t.header.name, t0, steps, {
        line: 1,
        step: launchStep,
        message: msg(e),
      });
    }
    const started = Date.now();
    for (const s of t.steps) {
      if (opts.signal?.aborted)
        return fail(file, t.header.name, t0, steps, {
          line: s.line,
          step: 'interrupted',
          message: 'Interrupted (Ctrl-C).',
        });
      const s0 = Date.now();
      const text = stepText(s);
      if (process.env.GB_DEBUG) process.stderr.write(`step ${text}\n`);
      const { line } = s;
      let answer: Json | undefined;
      try {
        if (s.kind === 'do') {
          await placeInTime(game, s, started, opts.signal);
          let step: DoStep = s;
          if (!(game.frameExact && CLOCK_TOOLS.has(s.name))) {
            const made = await callStep(driver, game.port, s, opts.update !== undefined && opts.update !== false);
            answer = made.answer;
            if (made.rebound) {
              step = made.rebound.step;
              rebound.push({ line, from: made.rebound.from, to: made.rebound.to });
              updated = true;
            }
            game.after(s.name, step.arguments, answer);
          }
          rewritten.push(step);
        } else {
          await placeInTime(game, s, started, opts.signal);
          const f = await checkExpect(game, t, s, opts);
          if (f && 'replace' in f) {
            rewritten.push(f.replace);
            updated = true;
          } else if (f) {
            steps.push({ line, text, ok: false, ms: Date.now() - s0 });
            await opts.trace?.step(game, s, text, s0, { error: f.message });
            return fail(file, t.header.name, t0, steps, { line, step: text, ...f });
          } else rewritten.push(s);
        }
        steps.push({ line, text, ok: true, ms: Date.now() - s0 });
        await opts.trace?.step(game, s, text, s0, { answer });
      } catch (e) {
        steps.push({ line, text, ok: false, ms: Date.now() - s0 });
        await opts.trace?.step(game, s, text, s0, { error: msg(e) });
        if (e instanceof NodeGone)
          return fail(file, t.header.name, t0, steps, {
            line,
            step: text,
            kind: 'node-gone',
            message: e.message,
            nearest: e.gone.nearest,
          });
        const state = await game.stateAt();
        return fail(file, t.header.name, t0, steps, { line, step: text, message: msg(e), state });
      }
    }
    if (opts.update && updated) writeProjectFile(t.file, formatTest(t.header, rewritten));
    return {
      file,
      name: t.header.name,
      ok: true,
      ms: Date.now() - t0,
      steps,
      updated,
      ...(rebound.length ? { rebound } : {}),
      timing: t.header.timing,
    };
  } catch (e) {
    return fail(file, t.header.name, t0, steps, { line: 0, step: 'reach the daemon', message: msg(e) });
  } finally {
    if (game) await driver?.tool('stop_instance', { port: game.port, force: true }).catch(() => undefined);
    await driver?.close();
  }
}

type ExpectOutcome = Omit<Failure, 'line' | 'step'> | { replace: ExpectStep } | undefined;

/** Check one expect; a failure's facts, a replacement (--update), or nothing when it held. */
async function checkExpect(game: Game, t: TestFile, s: ExpectStep, opts: ReplayOptions): Promise<ExpectOutcome> {
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

const msg = (e: unknown) =>
  e instanceof ToolFailed ? e.text : isBridgeError(e) ? e.text : ((e as Error)?.message ?? String(e));

function fail(file: string, name: string, t0: number, steps: StepReport[], failure: Failure): TestResult {
  return { file, name, ok: false, ms: Date.now() - t0, steps, failure };
}

export type { Json };
