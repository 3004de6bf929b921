/**
 * The saved-test bridge tools (docs/TESTS.md), one family: `assert` checks the state now and becomes an
 * expect; `save_test` writes this session's recording on the game as a test file beside the
 * project's gamebridge.json; `run_test` runs a saved test as `game-bridge-mcp test` does (that
 * very command, so the two cannot disagree), on a game the run launches for itself.
 */
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, normalize, relative } from 'node:path';
import { assertionFailed, usageError } from '../../../shared/errors.js';
import { mainJs } from '../../../shared/self-command.js';
import { conditionText, type Condition } from '../../../shared/test-file.js';
import { projectFolder, writeProjectFile } from '../../../shared/project-files.js';
import { checkTestName, saveTest, TESTS_DIR } from '../../recording/save.js';
import { sessionTrace, type TraceNow } from '../../recording/trace.js';
import type { ToolContext } from '../../tool-framework/context.js';
import { frameOf } from '../../sync/summary.js';
import { conditionFrom, holds } from '../../sync/wait.js';
import { z } from '../../tool-framework/define.js';
import { conditionOperators, flag } from '../args.js';
import { bridgeTool, type BridgeFamily } from '../declare.js';
import { assertAnswer, runTestAnswer, saveTestAnswer, saveTraceAnswer } from '../../../shared/answers/testing.js';
import { projectConfig } from '../project.js';
import { openTest, openTestArgs } from '../test-moment.js';

/** A run_test run may take long (a long recording); the client's own timeout is usually shorter. */
const RUN_TEST_TIMEOUT_MS = 10 * 60_000;

const testName = () =>
  z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(\.jsonl)?$/, "letters, digits, '.', '_' and '-', e.g. first-drop")
    .describe("The test's name: gamebridge-tests/<name>.jsonl, e.g. 'first-drop'.");

export const assertTool = bridgeTool({
  name: 'assert',
  output: assertAnswer,
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
    const r = holds(state, cond);
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
  output: saveTestAnswer,
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
      `. Run it with run_test {name: "${name}"} or \`game-bridge-mcp test ${join(TESTS_DIR, `${name}.jsonl`)}\`.` +
      (saved.began === 'running'
        ? ` This recording did not start from a launch: the game was already running when this session first played it, and the test replays on a fresh launch, so a check that depends on what came before will not hold. To record from the start: launch_instance {restart: ${port}} (or launch_instance for a game the bridge did not launch), play again, then save_test {name: "${name}", overwrite: true}.`
        : '');
    return { json: { name, ...saved, summary } };
  },
});

export const runTestTool = bridgeTool({
  name: 'run_test',
  output: runTestAnswer,
  title: 'Run a saved test',
  description:
    'Run a saved test as `game-bridge-mcp test` does, on a fresh game it launches and stops itself (no port needed); answers passed or failed, and for a failure the step, the condition, expected and actual. ' +
    'With keep: true it is opened for this session instead: replayed up to `until` (a line) or the first expect that does not hold, and its game left there, paused, with its port.',
  input: z.object({
    name: testName(),
    ...openTestArgs,
  }),
  effect: { readOnly: false },
  player: false,
  recorded: false,
  onPort: false,
  async handler(args, ctx, call) {
    const name = args.name.replace(/\.jsonl$/, '');
    const project = projectConfig(ctx, undefined, 'run_test');
    const dir = join(dirname(project), TESTS_DIR);
    const file = join(dir, `${name}.jsonl`);
    if (!existsSync(file))
      throw usageError(`run_test: there is no ${file}. save_test {name: "${name}"} writes it.`, { file });
    if (args.until !== undefined && args.keep !== true)
      throw usageError('run_test: until goes with keep: true (the run stops there and leaves its game).');
    if (args.keep === true) return { json: await openTest(ctx, file, project, args.until, call) };
    const out = join(ctx.launcher.paths.home, `run-test-${process.pid}-${Date.now()}.json`);
    const env = { ...ctx.config.env, GAME_BRIDGE_HOME: ctx.launcher.paths.home };
    const code = await new Promise<number>((resolve) => {
      const child = execFile(
        process.execPath,
        [mainJs(), 'test', file, '--reporter', 'json', '--output', out],
        { cwd: ctx.config.cwd, env, signal: call.signal, timeout: RUN_TEST_TIMEOUT_MS, maxBuffer: 4 << 20 },
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

/** The game now, for a trace's last step: its state and, when it serves one, its screenshot. */
export async function gameNow(ctx: Pick<ToolContext, 'client' | 'launcher'>, port: number): Promise<TraceNow> {
  const now: TraceNow = {};
  try {
    now.state = (await ctx.client(port).state()) as Record<string, unknown>;
  } catch {
    /* the trace says the game did not answer */
  }
  try {
    const web = ctx.launcher.webGame(port);
    now.png = (web ? await web.screenshot() : await ctx.client(port).screenshot()) ?? undefined;
    if (!now.png) now.shotNote = 'no screenshot: the game serves none';
  } catch (e) {
    now.shotNote = `no screenshot: ${String((e as Error)?.message ?? e).slice(0, 300)}`;
  }
  return now;
}

export const saveTraceTool = bridgeTool({
  name: 'save_trace',
  output: saveTraceAnswer,
  title: 'Save this session as a trace',
  description:
    "Save what this session did to this game as a trace a person opens in a browser and steps through: every call with its answer, every check, the state's changes after each, their frames and times, and the game's state and screenshot now. " +
    "One self-contained HTML file at `file` (relative to the folder of the project's gamebridge.json, ending in .html); never replaces a file without overwrite: true. " +
    '`game-bridge-mcp show-trace <file>` opens it (docs/TESTS.md, "Traces").',
  input: z.object({
    file: z
      .string()
      .min(1)
      .max(300)
      .regex(/\.html$/i, 'a trace is an .html file, e.g. session-traces/menu-bug.trace.html')
      .describe("Where to write it, relative to the project's folder, e.g. 'session-traces/menu-bug.trace.html'."),
    overwrite: flag().optional().describe('Replace a file of that name. Default: false (an existing file is kept).'),
  }),
  effect: { readOnly: false },
  player: false,
  recorded: false,
  async handler(args, ctx, { port }) {
    const recording = ctx.recordings.peek(ctx.sessionId, port);
    if (!recording)
      throw usageError(
        `save_trace: this session has not played the game on port ${port} yet: launch it (launch_instance) or call its tools, then save.`,
      );
    const root = dirname(projectConfig(ctx, port, 'save_trace', 'a trace is written in its folder'));
    const rel = normalize(args.file);
    if (isAbsolute(rel) || rel.startsWith('..'))
      throw usageError(
        `save_trace: ${args.file} is outside the project (${root}); nothing was written. Name a file relative to the project's folder, e.g. session-traces/menu-bug.trace.html.`,
        { file: args.file },
      );
    const path = join(projectFolder(root, dirname(rel)), basename(rel));
    let exists = false;
    try {
      exists = lstatSync(path) !== undefined;
    } catch {
      /* a new file */
    }
    if (exists && args.overwrite !== true)
      throw usageError(
        `save_trace: ${path} already exists; nothing was written. Pass overwrite: true to replace it, or pick another file.`,
        { file: path },
      );
    const manifest = ctx.knownManifest(port);
    const game = recording.launch
      ? { name: recording.launch.name, version: recording.launch.version }
      : manifest?.game.name
        ? { name: manifest.game.name, ...(manifest.game.version ? { version: manifest.game.version } : {}) }
        : undefined;
    const built = sessionTrace(
      recording,
      {
        session: ctx.sessionId,
        port,
        ...(ctx.clientName() ? { client: ctx.clientName() } : {}),
        ...(game ? { game } : {}),
      },
      await gameNow(ctx, port),
    );
    const { trace } = built;
    const html = built.html();
    writeProjectFile(path, html);
    const steps = trace.steps.length;
    return {
      json: {
        file: path,
        steps,
        screenshots: trace.shots.length,
        bytes: Buffer.byteLength(html),
        summary: `Saved a trace of ${steps} step${steps === 1 ? '' : 's'} to ${relative(root, path)}${trace.note ? ` (${trace.note})` : ''}. A person opens it with \`game-bridge-mcp show-trace ${path}\`, or in any browser.`,
      },
    };
  },
});

/** The family (index.ts): its tools in describe_toolset's order, and its clause of the description. */
export const savedTestsFamily: BridgeFamily = {
  name: 'saved-tests',
  clause: 'and keep what was found as a test (assert, save_test, run_test, save_trace)',
  tools: [assertTool, saveTestTool, runTestTool, saveTraceTool],
};
