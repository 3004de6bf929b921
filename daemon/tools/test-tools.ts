/**
 * The saved-test bridge tools (docs/TESTS.md): `assert` checks the state now and becomes an
 * expect; `save_test` writes this session's recording on the game as a test file beside the
 * project's gamebridge.json; `run_test` runs a saved test as `game-bridge-mcp test` does (that
 * very command, so the two cannot disagree), on a game the run launches for itself.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { locateDeclaration } from '../../shared/declaration-path.js';
import { assertionFailed, usageError } from '../../shared/errors.js';
import { mainJs } from '../../shared/self-command.js';
import { conditionText, type Condition } from '../../shared/test-file.js';
import { checkTestName, saveTest, TESTS_DIR } from '../recording/save.js';
import { frameOf } from '../sync/summary.js';
import { conditionFrom, test } from '../sync/wait.js';
import type { ToolContext } from './context.js';
import type { BridgeToolHandler } from './types.js';

/** A run_test run may take long (a long recording); the client's own timeout is usually shorter. */
const RUN_TEST_TIMEOUT_MS = 10 * 60_000;

/** The project's gamebridge.json: the one the session's game was launched from, else the session's own. */
function projectConfig(ctx: ToolContext, port: number | undefined, tool: string): string {
  const launched = port === undefined ? undefined : ctx.recordings.peek(ctx.sessionId, port)?.launch?.config;
  if (launched) return launched;
  const found = locateDeclaration(ctx.config.cwd, ctx.config.configPath, ctx.config.env.HOME).file;
  if (found) return found;
  throw usageError(
    `${tool}: no gamebridge.json for this session (none above ${ctx.config.cwd}); tests live in gamebridge-tests/ beside it. Create one with \`game-bridge-mcp init\`, or start the client with --config.`,
    { cwd: ctx.config.cwd },
  );
}

export const TEST_TOOLS: Record<'assert' | 'save_test' | 'run_test', BridgeToolHandler> = {
  async assert(ctx, base, args, extra) {
    const { port } = base;
    const cond = conditionFrom(args);
    const state = await ctx.client(port).state(extra.signal);
    ctx.recordings.of(ctx.sessionId, port).last = state;
    const r = test(state, cond);
    const frame = frameOf(state);
    if (!r.ok) {
      const expected = conditionText(args as Condition).slice(cond.path.length + 1);
      throw assertionFailed(port, cond.path, expected, r.value, frame);
    }
    return { json: { ...base, matched: true, path: cond.path, value: r.value ?? null, frame: frame ?? null } };
  },

  async save_test(ctx, base, args) {
    const { port } = base;
    if (typeof args.name !== 'string' || !args.name.trim())
      throw usageError('save_test needs a \'name\' for the test, e.g. {name: "first-drop"}.');
    const name = args.name.trim();
    checkTestName(name, 'save_test');
    const ignore = args.ignore === undefined ? [] : args.ignore;
    if (!Array.isArray(ignore) || !ignore.every((p) => typeof p === 'string' && p))
      throw usageError('save_test: \'ignore\' must be a list of state paths, e.g. ["game.startedAt"].');
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
      overwrite: args.overwrite === true || args.overwrite === 'true',
      recording,
      config: projectConfig(ctx, port, 'save_test'),
      profile: recording.launch?.profile,
      game,
      frameExact: caps.includes('clock'),
      ignore: ignore as string[],
    });
    const summary =
      `Saved ${saved.calls} call${saved.calls === 1 ? '' : 's'} and ${saved.expects} expect${saved.expects === 1 ? '' : 's'} (${saved.timing}) to ${saved.path}` +
      (saved.leftOut ? `; ${saved.leftOut} check${saved.leftOut === 1 ? '' : 's'} that did not hold left out` : '') +
      (saved.dropped ? `; the recording had dropped its ${saved.dropped} oldest steps` : '') +
      `. Run it with run_test {name: "${name}"} or \`game-bridge-mcp test ${join(TESTS_DIR, `${name}.jsonl`)}\`.`;
    return { json: { ...base, name, ...saved, summary } };
  },

  async run_test(ctx, base, args, extra) {
    if (typeof args.name !== 'string' || !args.name.trim())
      throw usageError('run_test needs the \'name\' of a saved test, e.g. {name: "first-drop"}.');
    const name = args.name.trim().replace(/\.jsonl$/, '');
    checkTestName(name, 'run_test');
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
        { cwd: ctx.config.cwd, env, signal: extra.signal, timeout: RUN_TEST_TIMEOUT_MS, maxBuffer: 4 << 20 },
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
    const test0 = (report.tests as Array<Record<string, unknown>> | undefined)?.[0] ?? {};
    return { json: { tool: base.tool, via: base.via, file, passed: code === 0, ...test0 } };
  },
};
