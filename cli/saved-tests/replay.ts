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
import { isBridgeError } from '../../shared/errors.js';
import { writeProjectFile } from '../../shared/project-files.js';
import {
  conditionText,
  formatTest,
  isScreenshot,
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
import { checkExpect } from './expect-step.js';
import type { Failure, StepReport, TestResult } from './results.js';

export { Game, launchFor, placeInTime };
import type { TestTrace } from './trace.js';

export type { Failure, StepReport, TestResult } from './results.js';

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
  /** --debug: leave the game running where the run stopped (the failing step, or the end) */
  keep?: boolean;
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

/** What a replay keeps as it goes: the report's steps, the file as --update rewrites it, the re-bound nodes. */
interface Progress {
  steps: StepReport[];
  rewritten: Array<DoStep | ExpectStep>;
  rebound: NonNullable<TestResult['rebound']>;
  updated: boolean;
}

/** A header names what to launch only inside its own project, as launch_instance {config} does. */
function launchRefusal(t: TestFile, config: string, opts: ReplayOptions, step: string): Failure | undefined {
  const project = testProject(t);
  if (!opts.config && !inside(project, config))
    return {
      line: 1,
      step,
      message: `BridgeUsageError: the header's launch.config ${config} is outside the test's project (${project}); nothing was launched. Name a gamebridge.json inside the project, or pass --config.`,
    };
  if (!existsSync(config))
    return {
      line: opts.config ? 0 : 1,
      step,
      message: `BridgeUsageError: there is no ${config}${opts.config ? ' (--config)' : " (the header's launch.config, relative to the test file)"}.`,
    };
  return undefined;
}

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
  const p: Progress = { steps: [], rewritten: [], rebound: [], updated: false };
  const failed = (f: Failure) => fail(file, t.header.name, t0, p.steps, f);
  const launchStep = `launch ${config}${t.header.launch.profile ? ` (profile ${t.header.launch.profile})` : ''}`;
  const refused = launchRefusal(t, config, opts, launchStep);
  if (refused) return failed(refused);
  let driver: Driver | undefined;
  let game: Game | undefined;
  let result: TestResult | undefined;
  try {
    result = await replaySteps();
    return result;
  } finally {
    if (game && opts.keep && result) {
      const sim = await game.stateAt('simFrame');
      result.kept = { port: game.port, ...(typeof sim === 'number' ? { simFrame: sim } : {}) };
    } else if (game) await driver?.tool('stop_instance', { port: game.port, force: true }).catch(() => undefined);
    await driver?.close();
  }

  async function replaySteps(): Promise<TestResult> {
    try {
      driver = await openDriver(config);
      try {
        game = await launchFor(t, driver);
        await opts.trace?.launched(game, config, t.header.launch.profile);
      } catch (e) {
        return failed({ line: 1, step: launchStep, message: msg(e) });
      }
      const started = Date.now();
      for (const s of t.steps) {
        if (opts.signal?.aborted)
          return failed({ line: s.line, step: 'interrupted', message: 'Interrupted (Ctrl-C).' });
        const f = await runStep(driver, game, t, s, started, opts, p);
        if (f) return failed(f.kind === 'value' && t.header.began === 'running' ? beganElsewhere(f) : f);
      }
      // the values written are a fresh launch's now: the test no longer depends on what came before
      const { began: _began, ...header } = t.header;
      if (opts.update && p.updated) writeProjectFile(t.file, formatTest(header, p.rewritten));
      return {
        file,
        name: t.header.name,
        ok: true,
        ms: Date.now() - t0,
        steps: p.steps,
        updated: p.updated,
        ...(p.rebound.length ? { rebound: p.rebound } : {}),
        timing: t.header.timing,
      };
    } catch (e) {
      return failed({ line: 0, step: 'reach the daemon', message: msg(e) });
    }
  }
}

/** One step at its time: a call made (re-bound to a renamed node under --update) or an expect checked; the failure that ends the test, if any. */
async function runStep(
  driver: Driver,
  game: Game,
  t: TestFile,
  s: TestFile['steps'][number],
  started: number,
  opts: ReplayOptions,
  p: Progress,
): Promise<Failure | undefined> {
  const s0 = Date.now();
  const text = stepText(s);
  if (process.env.GB_DEBUG) process.stderr.write(`step ${text}\n`);
  const { line } = s;
  const report = async (ok: boolean, outcome: { answer?: Json; error?: string }) => {
    p.steps.push({ line, text, ok, ms: Date.now() - s0 });
    await opts.trace?.step(game, s, text, s0, outcome);
  };
  let answer: Json | undefined;
  try {
    await placeInTime(game, s, started, opts.signal);
    if (s.kind === 'do') {
      let step: DoStep = s;
      if (!(game.frameExact && CLOCK_TOOLS.has(s.name))) {
        const made = await callStep(driver, game.port, s, opts.update !== undefined && opts.update !== false);
        answer = made.answer;
        if (made.rebound) {
          step = made.rebound.step;
          p.rebound.push({ line, from: made.rebound.from, to: made.rebound.to });
          p.updated = true;
        }
        game.after(s.name, step.arguments, answer);
      }
      p.rewritten.push(step);
    } else {
      const f = await checkExpect(game, t, s, opts);
      if (f && 'replace' in f) {
        p.rewritten.push(f.replace);
        p.updated = true;
      } else if (f) {
        await report(false, { error: f.message });
        return { line, step: text, ...f };
      } else p.rewritten.push(s);
    }
    await report(true, { answer });
    return undefined;
  } catch (e) {
    await report(false, { error: msg(e) });
    if (e instanceof NodeGone)
      return { line, step: text, kind: 'node-gone', message: e.message, nearest: e.gone.nearest };
    return { line, step: text, message: msg(e), state: await game.stateAt() };
  }
}

/** A value that differs in a test whose recording began on a running game: what came before may explain it. */
function beganElsewhere(f: Failure): Failure {
  return {
    ...f,
    kind: 'began-elsewhere',
    message: `${f.message}\nThis test was recorded on a game that was already running, not from a launch (its header says "began": "running"); the replay starts from a fresh launch, so the expected value may come from what happened before the recording.`,
  };
}

const msg = (e: unknown) =>
  e instanceof ToolFailed ? e.text : isBridgeError(e) ? e.text : ((e as Error)?.message ?? String(e));

function fail(file: string, name: string, t0: number, steps: StepReport[], failure: Failure): TestResult {
  return { file, name, ok: false, ms: Date.now() - t0, steps, failure };
}

export type { Json };
