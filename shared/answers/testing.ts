/** What the tools of assertions, saved tests and traces answer (docs/TOOLS.md is written from these). */
import { z } from './fields.js';

/** What assert answers. */
export const assertAnswer = z
  .object({
    matched: z.boolean().describe('`true`'),
    path: z.string().describe('the path checked'),
    value: z.unknown().describe('its value now'),
    frame: z.number().describe('the frame of the state it was read in'),
  })
  .loose();

/** What save_test answers. */
export const saveTestAnswer = z
  .object({
    name: z.string().describe("the test's name"),
    path: z.string().describe('the file written'),
    steps: z.number().describe('lines after the header'),
    calls: z.number().describe('`do` steps'),
    expects: z.number().describe('`expect` steps'),
    leftOut: z.number().describe('checks that did not hold, left out'),
    dropped: z.number().describe('the oldest steps the recording no longer held (it keeps 2,000)'),
    timing: z.string().describe('`frame-exact` (the game has the agent clock) or `real-time`'),
    began: z
      .enum(['launch', 'running'])
      .describe(
        '`launch`: the recording began at a launch; `running`: on a game already running, which the replay cannot rebuild',
      ),
    summary: z.string().describe('one sentence saying the above, and how to run it'),
  })
  .loose();

/** What run_test answers. */
export const runTestAnswer = z
  .object({
    file: z.string().describe('the test file'),
    passed: z.boolean().describe('whether it passed'),
    name: z.string().describe("the test's name"),
    ok: z.boolean().describe('the same as `passed`'),
    ms: z.number().describe('how long it ran'),
    steps: z
      .array(
        z
          .object({
            line: z.number().describe("the step's line in the file"),
            text: z.string().describe('the step, as a report shows it'),
            ok: z.boolean().describe('whether it passed'),
            ms: z.number().describe('how long it took'),
          })
          .loose(),
      )
      .describe('the steps run, in order'),
    updated: z.unknown().optional().describe("always `false` here (`--update` is the CLI's) *(when it ran)*"),
    timing: z.unknown().optional().describe("the test's timing *(when it ran)*"),
    failure: z
      .object({
        line: z.number().optional().describe('its line (0: before any step) *(when it failed)*'),
        step: z.string().optional().describe('the step *(when it failed)*'),
        message: z.string().optional().describe('the error, class first *(when it failed)*'),
        condition: z.unknown().optional().describe("the expect's condition *(when an expect failed)*"),
        expected: z.unknown().optional().describe('the operator and value expected *(when an expect failed)*'),
        actual: z.unknown().optional().describe('the value found *(when an expect failed)*'),
        state: z.record(z.string(), z.unknown()).optional().describe('the state around the failure *(when known)*'),
        statePath: z.unknown().optional().describe('which part of the state that is *(when known)*'),
        images: z.unknown().optional().describe('baseline, actual and diff pictures *(when a screenshot failed)*'),
      })
      .loose()
      .optional()
      .describe('what failed *(when it failed)*'),
    port: z.number().optional().describe('the port of the game it left running *(when keep)*'),
    frame: z.number().optional().describe('the simFrame that game is paused at *(when keep)*'),
    stoppedAt: z
      .object({ line: z.number(), step: z.string() })
      .loose()
      .nullable()
      .optional()
      .describe('the step it stopped before; null: it ran to the end *(when keep)*'),
    next: z.string().optional().describe('how to look at the game and bring a fixed build back to it *(when keep)*'),
    trace: z
      .string()
      .optional()
      .describe(
        'the failed run\'s trace (docs/TESTS.md, "Traces"), in the bridge\'s home; `game-bridge-mcp show-trace` opens it *(when it failed)*',
      ),
  })
  .loose();

/** What save_trace answers. */
export const saveTraceAnswer = z
  .object({
    file: z.string().describe('the file written'),
    steps: z.number().describe('the steps in the trace (the launch and the game now included)'),
    screenshots: z.number().describe('pictures in it'),
    bytes: z.number().describe("the file's size"),
    summary: z.string().describe('one sentence saying the above, and how a person opens it'),
  })
  .loose();
