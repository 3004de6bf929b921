/**
 * The saved-test bridge tools (docs/TESTS.md), one family: `assert` checks the state now and becomes an
 * expect; `save_test` writes this session's recording on the game as a test file beside the
 * project's gamebridge.json; `run_test` runs a saved test as `game-bridge-mcp test` does (that
 * very command, so the two cannot disagree), on a game the run launches for itself.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { assertionFailed, usageError } from '../../shared/errors.js';
import { mainJs } from '../../shared/self-command.js';
import { conditionText, type Condition } from '../../shared/test-file.js';
import { checkTestName, saveTest, TESTS_DIR } from '../recording/save.js';
import { frameOf } from '../sync/summary.js';
import { conditionFrom, test } from '../sync/wait.js';
import { z } from '../toolkit/define.js';
import { conditionOperators, flag } from './args.js';
import { bridgeTool } from './declare.js';
import { projectConfig } from './project.js';

/** A run_test run may take long (a long recording); the client's own timeout is usually shorter. */
const RUN_TEST_TIMEOUT_MS = 10 * 60_000;

const testName = () =>
  z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(\.jsonl)?$/, "letters, digits, '.', '_' and '-', e.g. first-drop")
    .describe("The test's name: gamebridge-tests/<name>.jsonl, e.g. 'first-drop'.");

export const assertTool = bridgeTool({
  name: 'assert',
  title: 'Check the state now',
  description:
    'Check the state now: the value at `path` must meet one condition (the operators of wait_for); fails with AssertionFailed, the value and the frame when it does not. ' +
    'Each assert becomes an expect of the test save_test writes.',
  input: z.object({
    path: z.string().describe("Dotted path into the state, e.g. 'game.score'."),
    ...conditionOperators((what) => `The value${what}.`, 'true: the path is present; false: it is absent.'),
  }),
  effect: { readOnly: true },
  player: false,
  recorded: 'check',
  async handler(args, ctx, { port, signal }) {
    const cond = conditionFrom(args);
    const state = await ctx.client(port).state(signal);
    ctx.recordings.of(ctx.sessionId, port).last = state;
    const r = test(state, cond);
    const frame = frameOf(state);
    if (!r.ok) {
      const expected = conditionText(args as Condition).slice(cond.path.length + 1);
      throw assertionFailed(port, cond.path, expected, r.value, frame);
    }
    return { json: { matched: true, path: cond.path, value: r.value ?? null, frame: frame ?? null } };
  },
});

export const saveTestTool = bridgeTool({
  name: 'save_test',
  title: 'Save this session as a test',
  description:
    "Save what this session did to this game (its launch, every call, every check that held) as a test: gamebridge-tests/<name>.jsonl beside the project's gamebridge.json, " +
    'replayable with run_test or `game-bridge-mcp test` (docs/TESTS.md). Never replaces a test without overwrite: true. Answers the path and a summary.',
  input: z.object({
    name: testName(),
    overwrite: flag().optional().describe('Replace a test of that name. Default: false (an existing test is kept).'),
    ignore: z
      .array(z.string().min(1))
      .optional()
      .describe("State paths a comparison of two builds leaves out, e.g. ['game.startedAt']."),
  }),
  effect: { readOnly: false },
  player: false,
  recorded: false,
  async handler(args, ctx, { port }) {
    const name = args.name.replace(/\.jsonl$/, '');
    checkTestName(name, 'save_test');
    const recording = ctx.recordings.peek(ctx.sessionId, port);
    if (!recording)
      throw usageError(
        `save_test: this session has not played the game on port ${port} yet: launch it (launch_instance) or call its tools, then save.`,
      );
    const health = await ctx.client(port).health();
    const caps = Array.isArray(health.capabilities) ? health.capabilities.map(String) : [];
    const manifest = ctx.knownManifest(port);
    const game = recording.launch
      ? { name: recording.launch.name, version: recording.launch.version }
      : { name: manifest?.game.name ?? 'game', ...(manifest?.game.version ? { version: manifest.game.version } : {}) };
    const saved = saveTest({
      name,
      overwrite: args.overwrite === true,
      recording,
      config: projectConfig(ctx, port, 'save_test'),
      profile: recording.launch?.profile,
      game,
      frameExact: caps.includes('clock'),
      ignore: args.ignore ?? [],
    });
    const summary =
      `Saved ${saved.calls} call${saved.calls === 1 ? '' : 's'} and ${saved.expects} expect${saved.expects === 1 ? '' : 's'} (${saved.timing}) to ${saved.path}` +
      (saved.leftOut ? `; ${saved.leftOut} check${saved.leftOut === 1 ? '' : 's'} that did not hold left out` : '') +
      (saved.dropped ? `; the recording had dropped its ${saved.dropped} oldest steps` : '') +
      `. Run it with run_test {name: "${name}"} or \`game-bridge-mcp test ${join(TESTS_DIR, `${name}.jsonl`)}\`.`;
    return { json: { name, ...saved, summary } };
  },
});

export const runTestTool = bridgeTool({
  name: 'run_test',
  title: 'Run a saved test',
  description:
    'Run a saved test as `game-bridge-mcp test` does, on a fresh game it launches and stops itself (no port needed); answers passed or failed, and for a failure the step, the condition, expected and actual.',
  input: z.object({ name: testName() }),
  effect: { readOnly: false },
  player: false,
  recorded: false,
  onPort: false,
  async handler(args, ctx, { signal }) {
    const name = args.name.replace(/\.jsonl$/, '');
    const dir = join(dirname(projectConfig(ctx, undefined, 'run_test')), TESTS_DIR);
    const file = join(dir, `${name}.jsonl`);
    if (!existsSync(file))
      throw usageError(`run_test: there is no ${file}. save_test {name: "${name}"} writes it.`, { file });
    const out = join(ctx.launcher.paths.home, `run-test-${process.pid}-${Date.now()}.json`);
    const env = { ...ctx.config.env, GAME_BRIDGE_HOME: ctx.launcher.paths.home };
    const code = await new Promise<number>((resolve) => {
      const child = execFile(
        process.execPath,
        [mainJs(), 'test', file, '--reporter', 'json', '--output', out],
        { cwd: ctx.config.cwd, env, signal, timeout: RUN_TEST_TIMEOUT_MS, maxBuffer: 4 << 20 },
        (err) => resolve(err ? (typeof err.code === 'number' ? err.code : 1) : 0),
      );
      child.stdin?.end();
    });
    let report: Record<string, unknown>;
    try {
      report = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
    } catch {
      throw usageError(
        `run_test: the run of ${file} ended (exit code ${code}) without a report. Run \`game-bridge-mcp test ${file}\` in a terminal to see why.`,
        { file },
      );
    } finally {
      rmSync(out, { force: true });
    }
    const first = (report.tests as Array<Record<string, unknown>> | undefined)?.[0] ?? {};
    return { json: { file, passed: code === 0, ...first } };
  },
});

/** The family, in the order describe_toolset lists it. */
export const TESTING_TOOLS = [assertTool, saveTestTool, runTestTool];
