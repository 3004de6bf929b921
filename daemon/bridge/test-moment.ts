/**
 * run_test {name, until?, keep: true}: a saved test opened at a step, for an agent to look at. Its
 * game is launched for this session (paused, with the test's seed and profile), its steps are
 * made again through call_tool's dispatch as a restart to a moment makes a recording's
 * (moment-replay.ts), and the run stops before the step `until` names, or before the first expect
 * that does not hold; the game stays there, paused and this session's, with the steps so far as
 * its recording, so `launch_instance {restart, to: "here"}` brings a fixed build back to it.
 */
import { dirname } from 'node:path';
import { inside } from '../../shared/declaration-path.js';
import { usageError } from '../../shared/errors.js';
import { conditionText, isScreenshot, readTestFile, testRelative, type Condition } from '../../shared/test-file.js';
import type { RecordedStep } from '../recording/recordings.js';
import { conditionFrom, holds } from '../sync/wait.js';
import type { ToolContext } from '../tool-framework/context.js';
import type { BridgeCall } from './declare.js';
import { z } from '../tool-framework/define.js';
import { flag } from './args.js';
import { recordLaunch } from './moment.js';
import { replaySteps, simOf, type MomentCall } from './moment-replay.js';

/** run_test's arguments for opening a test (beside its name). */
export const openTestArgs = {
  keep: flag()
    .optional()
    .describe(
      'Open the test for this session instead: replay it up to a step and leave its game running there, paused, for you to look, step and restart {to: "here"} after a fix. Default: false.',
    ),
  until: z
    .int()
    .min(2)
    .optional()
    .describe('With keep: the line of the step to stop before. Default: the first expect that does not hold.'),
};

type Step = ReturnType<typeof readTestFile>['steps'][number];

const stepText = (s: Step) =>
  s.kind === 'do'
    ? `${s.name}${Object.keys(s.arguments).length ? ` ${JSON.stringify(s.arguments)}` : ''}`
    : isScreenshot(s.expect)
      ? `expect screenshot ${s.expect.screenshot}`
      : `expect ${conditionText(s.expect as Condition)}`;

/** A test's step as a recorded one, so the replay makes it as it makes a session's. */
const asRecorded = (s: Step): RecordedStep =>
  s.kind === 'do'
    ? {
        kind: 'do',
        name: s.name,
        arguments: s.arguments,
        at: Date.now(),
        ...(s.atSimFrame !== undefined ? { simFrame: s.atSimFrame } : {}),
        answer: { via: s.name.startsWith('bridge.') ? 'bridge' : 'manifest' },
      }
    : {
        kind: 'check',
        tool: 'assert',
        condition: s.expect as Record<string, unknown>,
        held: true,
        at: Date.now(),
        ...(s.atSimFrame !== undefined ? { simFrame: s.atSimFrame } : {}),
      };

export async function openTest(
  ctx: ToolContext,
  file: string,
  project: string,
  until: number | undefined,
  call: BridgeCall,
): Promise<Record<string, unknown>> {
  const t0 = Date.now();
  const t = readTestFile(file);
  if (t.header.timing !== 'frame-exact')
    throw usageError(
      `run_test {keep}: ${file} is a real-time test (its game had no clock when it was recorded), so it cannot be stopped at a step; run it without keep.`,
      { file },
    );
  if (until !== undefined && !t.steps.some((s) => s.line === until))
    throw usageError(
      `run_test {until: ${until}}: ${file} has no step on line ${until}; its steps are on lines ${t.steps[0]?.line ?? 2} to ${t.steps.at(-1)?.line ?? 2}.`,
      { file },
    );
  const config = testRelative(t, t.header.launch.config);
  if (!inside(dirname(project), config))
    throw usageError(`run_test: the header's launch.config ${config} is outside this project; nothing was launched.`, {
      file,
    });
  const { profile, seed } = t.header.launch;
  const inst = await ctx.launcher.launch({
    cwd: dirname(config),
    configPath: config,
    ...(profile ? { profile } : {}),
    ...(seed !== undefined ? { seed: String(seed) } : {}),
    paused: true,
    env: ctx.config.env,
    owner: ctx.sessionId,
    signal: call.signal,
  });
  recordLaunch(ctx, inst);
  const steps = t.steps.map(asRecorded);
  let failure: Record<string, unknown> | undefined;
  const made: Array<{ line: number; text: string; ok: boolean; ms: number }> = [];
  const stopBefore = (_s: RecordedStep, i: number, state: Record<string, unknown>) => {
    const s = t.steps[i];
    if (s.line === until) return true;
    if (s.kind === 'expect' && !isScreenshot(s.expect)) {
      const cond = conditionFrom(s.expect as Record<string, unknown>);
      const r = holds(state, cond);
      if (!r.ok) {
        failure = {
          line: s.line,
          step: stepText(s),
          condition: s.expect,
          expected: conditionText(s.expect as Condition).slice(cond.path.length + 1),
          actual: r.value ?? null,
        };
        return until === undefined;
      }
    }
    made.push({ line: s.line, text: stepText(s), ok: true, ms: 0 });
    return false;
  };
  let current = 0;
  const dispatch: MomentCall = (name, args) => call.call!(name, args, inst.port);
  let run: Awaited<ReturnType<typeof replaySteps>>;
  try {
    run = await replaySteps(ctx, inst.port, steps, 0, {
      call: dispatch,
      extra: call,
      stopAtParting: false,
      stopBefore: (s, i, state) => ((current = i), stopBefore(s, i, state)),
    });
  } catch (e) {
    // a call the game refused: the run stops there, and the game stays where it got to
    const s = t.steps[current];
    failure = { line: s.line, step: stepText(s), message: (e as Error).message };
    const state = (await ctx.client(inst.port).state(call.signal)) as Record<string, unknown>;
    run = { frame: simOf(state) ?? 0, state, steps: [], calls: 0, stoppedAt: current };
  }
  const rec = ctx.recordings.of(ctx.sessionId, inst.port);
  for (const s of run.steps) rec.keep(s);
  const at = run.stoppedAt !== undefined ? t.steps[run.stoppedAt] : undefined;
  const where = at ? `before line ${at.line} (${stepText(at)})` : 'after its last step';
  return {
    file,
    name: t.header.name,
    passed: failure === undefined,
    ok: failure === undefined,
    ms: Date.now() - t0,
    steps: made,
    timing: t.header.timing,
    ...(failure ? { failure } : {}),
    port: inst.port,
    frame: run.frame,
    stoppedAt: at ? { line: at.line, step: stepText(at) } : null,
    next: `The game stays on port ${inst.port}, paused at frame ${run.frame} ${where}, and is this session's: get_state, step and snapshot look at it; after a fix, launch_instance {restart: ${inst.port}, to: "here"} brings the new build back to this frame.`,
  };
}
