/**
 * Saved tests end to end (docs/TESTS.md): a session recorded through the real proxy and daemon
 * with the SDK client and saved with save_test; then `game-bridge-mcp test` as a subprocess
 * replays it on fresh games: on its own build, on a build with a planted change, side by side
 * (--compare), in shards, four at a time, with --update, with screenshots, on bad files, and
 * interrupted. One home and one daemon for the whole file: the games are the runner's own.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { CHROMIUM } from './helpers/browser.js';
import { parseTestText } from '../shared/test-file.js';
import { discover, shardOf } from '../cli/saved-tests/run.js';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { bridgeFreeEnv, CLI, removeDir, tempHome, runCli } from './helpers/procs.js';
import { processesOf, reapAndReport, sleep } from './helpers/fault.js';
import { writeProject, type Project } from './helpers/project.js';

let home: string;
let root: string;
let a: Project;
let b: Project;
let h: McpHandle;
let recorded: string;
let gamePort: number;
const env = () => bridgeFreeEnv({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '120000' });

/** The CLI as a person runs it: exit code, stdout, stderr. */
const cli = (args: string[], cwd = a.root) => runCli(args, { cwd, env: env() });

/** Crate Stack games still running for this home. */
/** Crate Stack games the runner started for this home (not the recording session's own). */
const games = () =>
  processesOf(home).filter(
    (p) =>
      p.args.startsWith(process.execPath) && p.args.includes('crate-stack') && !p.args.includes(`--port ${gamePort} `),
  );

const HEAD = (name: string, timing = 'frame-exact') =>
  JSON.stringify({
    gamebridgeTest: 1,
    name,
    game: { name: 'Crate Stack' },
    launch: { config: '../gamebridge.json' },
    timing,
  });

beforeAll(async () => {
  home = tempHome('gb-saved-');
  root = tempHome('gb-saved-proj-');
  const ports = await freeRange(16);
  a = writeProject(join(root, 'a'), { ports: ports.slice(0, 8), gameArgs: '--screenshot' });
  // the planted change: another crate generator, so the same drops land other crates
  b = writeProject(join(root, 'b'), { ports: ports.slice(8), gameArgs: '--screenshot --seed planted' });
  h = await connect({ env: env(), cwd: a.root });
  const launched = (await call(h, 'launch_instance')).json;
  const port = launched.port as number;
  gamePort = port;
  const g = async (name: string, args: Record<string, unknown> = {}) => {
    const r = await gameCall(h, port, name, args);
    if (r.isError) throw new Error(r.text);
    return r.json;
  };
  await g('bridge.pause');
  await g('start');
  await g('press', { input: 'right', frames: 30 });
  await g('step', { frames: 20 });
  await g('drop_here');
  await g('step', { frames: 120, until: { path: 'game.score', gt: 0 } });
  await g('wait_for', { path: 'ui.screen', equals: 'GameScreen' });
  const state = (await g('get_state')).state as { game: Record<string, unknown> };
  await g('assert', { path: 'game.dropperX', equals: state.game.dropperX });
  await g('assert', { path: 'game.crates', equals: state.game.crates });
  await g('assert', { path: 'game.nextKind', equals: state.game.nextKind });
  const failed = await gameCall(h, port, 'assert', { path: 'game.score', equals: -1 });
  expect(failed.text).toMatch(/^AssertionFailed: On port \d+, game\.score is \d+ at frame \d+; expected equals -1\./);
  const saved = await g('save_test', { name: 'first-drop' });
  recorded = saved.path as string;
}, 120000);

afterAll(async () => {
  await h?.close();
  await reapAndReport(home);
  removeDir(home);
  removeDir(root);
});

test('a test recorded through MCP is saved with the header and steps docs/TESTS.md gives', () => {
  expect(recorded).toBe(join(a.root, 'gamebridge-tests', 'first-drop.jsonl'));
  const t = parseTestText(readFileSync(recorded, 'utf8'), recorded);
  expect(t.header).toMatchObject({
    gamebridgeTest: 1,
    name: 'first-drop',
    game: { name: 'Crate Stack', version: '1.0.0' },
    launch: { config: '../gamebridge.json' },
    timing: 'frame-exact',
    ignore: [],
  });
  expect(t.header.recorded).toMatch(/^\d{4}-\d\d-\d\dT/);
  const lines = t.steps.map((s) =>
    s.kind === 'do' ? `${s.name}@${s.atSimFrame}` : `expect ${s.expect && 'path' in s.expect ? s.expect.path : ''}`,
  );
  expect(lines).toEqual([
    'bridge.pause@0',
    'start@0',
    'bridge.press@0',
    'bridge.step@30',
    'drop_here@50',
    expect.stringMatching(/^bridge\.step@50$/),
    'expect game.score',
    'expect ui.screen',
    'expect game.dropperX',
    'expect game.crates',
    'expect game.nextKind',
  ]);
  // step {until} is saved as the frames it took, then its condition
  const untilStep = t.steps[5];
  expect(untilStep.kind === 'do' && untilStep.arguments).toEqual({ frames: expect.any(Number) });
});

test('save_test keeps a saved test unless overwrite is asked', async () => {
  const again = await gameCall(h, gamePort, 'save_test', { name: 'first-drop' });
  expect(again.text).toMatch(
    /^BridgeUsageError: save_test: .*first-drop\.jsonl already exists; nothing was written\. Pass overwrite: true/,
  );
});

test('a saved test passes on its own build and fails with exit 1 on a planted change, naming the step, path and both values, with right JUnit counts', async () => {
  const ok = await cli(['test', recorded]);
  expect(ok.err).toBe('');
  expect(ok.out).toMatch(/^✓ first-drop \(\d+\.\ds\)\n\n1 passed, 0 failed/);
  expect(ok.code).toBe(0);

  const xml = join(root, 'out', 'results.xml');
  const bad = await cli(['test', recorded, '--config', b.file, '--reporter', 'junit', '--output', xml]);
  expect(bad.code).toBe(1);
  expect(bad.out).toMatch(/^✗ first-drop \(/);
  expect(bad.out).toMatch(/at gamebridge-tests\/first-drop\.jsonl:\d+ {2}expect game\.(crates|nextKind|score) /);
  expect(bad.out).toMatch(/\n {4}path: {6}game\.\w+\n/);
  expect(bad.out).toMatch(/expected: {2}equals /);
  expect(bad.out).toMatch(/actual: {4}\S/);
  expect(bad.out).toMatch(/AssertionFailed: On port \d+, game\.\w+ is /);
  expect(bad.out).not.toContain('get_state'); // an agent's next step, not a person's at a terminal
  expect(bad.out).toMatch(/state \(game\): \{/);
  expect(bad.out).toMatch(/0 passed, 1 failed/);
  // the way to accept the new behaviour, pasteable: the same build and the failed file
  expect(bad.out).toMatch(
    /\nIf the game changed on purpose, .+ test --update --config \S+ gamebridge-tests\/first-drop\.jsonl writes what it does now into that test\.\n$/,
  );
  expect(ok.out).not.toContain('--update');
  const parsed = new XMLParser({ ignoreAttributes: false }).parse(readFileSync(xml, 'utf8'));
  expect(parsed.testsuites['@_tests']).toBe('1');
  expect(parsed.testsuites['@_failures']).toBe('1');
  expect(parsed.testsuites.testsuite.testcase['@_name']).toBe('first-drop');
  expect(parsed.testsuites.testsuite.testcase.failure['#text']).toMatch(/expected: equals/);
});

test('frame-exact replay reproduces positions exactly after held inputs and steps (run_test through MCP, as the CLI runs it)', async () => {
  // the recording asserted the exact dropper x and every crate's position; a replay passes only if they match
  const r = await gameCall(h, 1, 'run_test', { name: 'first-drop' });
  expect(r.isError).toBe(false);
  expect(r.json).toMatchObject({ passed: true, ok: true, name: 'first-drop', timing: 'frame-exact' });
  expect((r.json.steps as Array<{ text: string; ok: boolean }>).map((s) => s.text)).toContain(
    'bridge.press {"input":"right","frames":30} @0',
  );
  const missing = await gameCall(h, 1, 'run_test', { name: 'nope' });
  expect(missing.text).toMatch(
    /^BridgeUsageError: run_test: there is no .*nope\.jsonl\. save_test \{name: "nope"\} writes it\./,
  );
});

test('--compare finds a build agrees with itself', async () => {
  const same = await cli(['test', '--compare', a.file, a.file, recorded]);
  expect(same.out).toMatch(/^✓ first-drop: both builds agree after all \d+ steps/);
  expect(same.code).toBe(0);
});

test('--compare names the first step where two builds part, with the path and both values', async () => {
  const differ = await cli(['test', '--compare', a.file, b.file, recorded]);
  expect(differ.out).toMatch(
    /^✗ first-drop: the builds part after step \d+ \(gamebridge-tests\/first-drop\.jsonl:\d+ {2}\S+/,
  );
  expect(differ.out).toMatch(
    /\n {4}path: game\.\S+\n {4}A \(gamebridge\.json\): \S+\n {4}B \(\.\.\/b\/gamebridge\.json\): \S+/,
  );
  expect(differ.code).toBe(1);
});

describe('a session using every input tool on a paused game', () => {
  let c: McpHandle;
  let port = 0;
  let end: { game: Record<string, unknown> };
  let saved: string;

  beforeAll(async () => {
    c = await connect({ env: env(), cwd: a.root });
    port = (await call(c, 'launch_instance')).json.port as number;
    const g = async (name: string, args: Record<string, unknown> = {}) => {
      const r = await gameCall(c, port, name, args);
      if (r.isError) throw new Error(r.text);
      return r.json;
    };
    await g('bridge.pause');
    await g('start');
    await g('set_axis', { input: 'steer', value: 1, frames: 10 });
    await g('pointer', { action: 'click', x: 0, y: 40 });
    await g('step', { frames: 5 });
    await g('pointer', { action: 'drag', path: [[20, 30]], x: 159, y: 30, frames: 8 });
    await g('wheel', { dy: 100 });
    await g('tap', { x: 0, y: 40, frames: 3 });
    await g('swipe', { from: [80, 40], to: [159, 40], frames: 6 });
    await g('pinch', { x: 80, y: 40, from: 20, to: 158, frames: 4 });
    await g('type', { text: 'Bo' });
    await g('input_sequence', {
      steps: [
        { frame: 0, tool: 'set_axis', args: { input: 'steer', value: -0.5, frames: 12 } },
        { frame: 5, tool: 'type', args: { text: 'b' } },
        { frame: 14, tool: 'pointer', args: { action: 'click', x: 159, y: 40 } },
        { frame: 20, tool: 'tap', args: { x: 0, y: 40 } },
      ],
    });
    await g('step', { frames: 40 });
    end = (await g('get_state')).state as { game: Record<string, unknown> };
    for (const key of ['dropperX', 'crates', 'playerName', 'score'])
      await g('assert', { path: `game.${key}`, equals: end.game[key] });
    // Crate Stack's events age by rendered frames, which go on while paused: left out of --compare
    saved = (await g('save_test', { name: 'every-input', ignore: ['events'] })).path as string;
  }, 120000);

  afterAll(async () => {
    // the later tests count the daemon's games and run the project's whole folder of tests
    if (port) await call(c, 'stop_instance', { port });
    await c?.close();
    rmSync(join(a.root, 'gamebridge-tests', 'every-input.jsonl'), { force: true });
  });

  test('is saved with each input at the frame it began on', () => {
    // eight crates in two straight stacks, at either wall: nothing topples, the round goes on
    expect([end.game.playerName, (end.game.crates as unknown[]).length, end.game.over]).toEqual(['Bob', 8, null]);
    const lines = parseTestText(readFileSync(saved, 'utf8'), saved).steps.map((s) =>
      s.kind === 'do' ? `${s.name.replace(/^bridge\./, '')}@${s.atSimFrame}` : 'expect',
    );
    // each input at the frame it began on: the frames a gesture ran are not counted twice
    expect(lines).toEqual([
      'pause@0',
      'start@0',
      'set_axis@0',
      'pointer@10',
      'step@11',
      'pointer@16',
      'wheel@25',
      'tap@25',
      'swipe@28',
      'pinch@35',
      'type@40',
      'input_sequence@40',
      'step@61',
      'expect',
      'expect',
      'expect',
      'expect',
    ]);
  });

  test('replays twice to the recorded state', async () => {
    for (const run of [1, 2]) {
      const r = await cli(['test', saved]);
      expect([run, r.code, r.out]).toEqual([run, 0, expect.stringMatching(/^✓ every-input /)]);
    }
  });

  test('agrees with itself under --compare', async () => {
    const same = await cli(['test', '--compare', a.file, a.file, saved]);
    expect(same.out).toMatch(/^✓ every-input: both builds agree after all \d+ steps/);
  });
});

describe("the docs' hand-written test", () => {
  let dir: string, file: string;

  beforeAll(() => {
    dir = join(a.root, 'gamebridge-tests');
    file = join(dir, 'docs-example.jsonl');
    const docs = readFileSync(join(process.cwd(), 'docs', 'TESTS.md'), 'utf8');
    const block = /```jsonl\n([\s\S]*?)```/.exec(docs)![1];
    // a wrong expected value, for --update to rewrite
    writeFileSync(file, block + '{"expect": {"path": "game.height", "equals": 9999}}\n');
  });

  test('runs, asking for --update while it has no baseline', async () => {
    const first = await cli(['test', file]);
    expect(first.code).toBe(1);
    expect(first.out).toMatch(/there is no baseline .*first-drop\.png; run with --update/);
  });

  test('--update rewrites its baseline and wrong value', async () => {
    const update = await cli(['test', file, '--update']);
    expect(update.out).toMatch(/^✓ first-drop \(\d+\.\ds\) updated/);
    expect(existsSync(join(dir, 'first-drop.png'))).toBe(true);
    const rewritten = readFileSync(file, 'utf8').trim().split('\n');
    expect(JSON.parse(rewritten[rewritten.length - 1]).expect.equals).not.toBe(9999);
    const pass = await cli(['test', file]);
    expect(pass.out).toMatch(/^✓ first-drop/);
    expect(pass.code).toBe(0);
  });

  test('its screenshot check fails with a diff on a changed build', async () => {
    // a build that draws other crates: a stricter screenshot check catches it before the values do
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"maxDiffRatio": ?0\.01/, '"maxDiffRatio":0.0001'));
    const html = join(root, 'out', 'html');
    const changed = await cli(['test', file, '--config', b.file, '--reporter', 'html', '--output', html]);
    expect(changed.code).toBe(1);
    expect(changed.out).toMatch(/at gamebridge-tests\/docs-example\.jsonl:9 {2}expect screenshot first-drop\.png\n/);
    expect(changed.out).toMatch(/screenshot first-drop\.png: [\d.]+% of the pixels differ \(allowed: 0\.01%\)/);
    expect(changed.out).toMatch(/diff: {5}gamebridge-tests\/first-drop\.diff\.png/);
    expect(existsSync(join(dir, 'first-drop.diff.png'))).toBe(true);
    expect(existsSync(join(dir, 'first-drop.actual.png'))).toBe(true);
    // the HTML report: the test, its steps, the three pictures side by side
    const page = readFileSync(join(html, 'index.html'), 'utf8');
    expect(page).toMatch(/0 passed<\/span>, <span class="bad">1 failed/);
    for (const img of ['0-actual-first-drop.actual.png', '0-baseline-first-drop.png', '0-diff-first-drop.diff.png']) {
      expect(page).toContain(`src="${img}"`);
      expect(existsSync(join(html, img))).toBe(true);
    }
  });
});

test('a real-time expect whose value is just different fails as an assertion, expected and actual first, with no advice to wait longer (terminal, HTML report, run_test)', async () => {
  const file = join(a.root, 'gamebridge-tests', 'realtime-wrong.jsonl');
  writeFileSync(
    file,
    `${HEAD('realtime-wrong', 'real-time')}\n{"do": "call_tool", "name": "start"}\n` +
      '{"expect": {"path": "ui.screen", "equals": "Nowhere"}, "timeoutMs": 300}\n',
  );
  const html = join(root, 'out', 'realtime-html');
  const r = await cli(['test', file, '--reporter', 'html', '--output', html]);
  expect(r.code).toBe(1);
  const shown = r.out
    .split('\n')
    .filter((l) => /^ {4}\w+: /.test(l) && !/^ {4}(condition|path|expected|actual|state|trace)/.test(l));
  expect(shown).toEqual([
    expect.stringMatching(
      /^ {4}AssertionFailed: On port \d+, ui\.screen is "GameScreen" at frame \d+; expected equals "Nowhere"/,
    ),
  ]);
  for (const text of [r.out, readFileSync(join(html, 'index.html'), 'utf8')]) {
    expect(text).not.toMatch(/CommandTimeout|raise timeoutMs|did not hold within/);
    expect(text).toContain('AssertionFailed: On port');
  }
  const run = await gameCall(h, 1, 'run_test', { name: 'realtime-wrong' });
  expect(run.json).toMatchObject({ passed: false, failure: { expected: 'equals "Nowhere"', actual: 'GameScreen' } });
  const message = String((run.json.failure as { message: string }).message);
  expect(message).toMatch(/^AssertionFailed: On port \d+, ui\.screen is "GameScreen"/);
  expect(message).not.toMatch(/timeoutMs|CommandTimeout/);
});

test('--reporter html without --output writes the report to a default folder and prints its path', async () => {
  const r = await cli(['test', recorded, '--reporter', 'html']);
  expect(r.code).toBe(0);
  const m = /^HTML report: (.+)$/m.exec(r.out);
  expect(m).not.toBeNull();
  expect(m![1]).toBe(join('gamebridge-report', 'index.html'));
  expect(readFileSync(join(a.root, m![1]), 'utf8')).toMatch(/1 passed/);
});

test('bad files fail with their line and a clear message: garbage, an unknown version, a missing game', async () => {
  const dir = join(root, 'bad', 'gamebridge-tests');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'garbage.jsonl'), `${HEAD('garbage')}\n{"do": "call_tool", "name": "start"}\n{oops\n`);
  writeFileSync(join(dir, 'newer.jsonl'), HEAD('newer').replace('"gamebridgeTest":1', '"gamebridgeTest":7') + '\n');
  writeFileSync(
    join(dir, 'missing.jsonl'),
    HEAD('missing').replace('../gamebridge.json', '../nowhere/gamebridge.json') +
      '\n{"do": "call_tool", "name": "start"}\n',
  );
  const r = await cli(['test'], join(root, 'bad'));
  expect(r.code).toBe(1);
  expect(r.out).toMatch(
    /✗ .*garbage\.jsonl.*\n {4}at gamebridge-tests\/garbage\.jsonl:0 {2}read the file\n {4}BridgeUsageError: .*garbage\.jsonl:3: not a JSON object/,
  );
  expect(r.out).toMatch(
    /newer\.jsonl:1: this test is format version 7; this game-bridge-mcp reads version 1\. Update game-bridge-mcp/,
  );
  expect(r.out).toMatch(
    /✗ missing .*\n {4}at gamebridge-tests\/missing\.jsonl:1 {2}launch .*nowhere\/gamebridge\.json\n {4}BridgeUsageError: there is no .*nowhere\/gamebridge\.json \(the header's launch\.config/,
  );
  expect(r.out).toMatch(/0 passed, 3 failed/);
  expect(games()).toEqual([]);
});

test("a test's name and steps with control characters (ESC, BEL, CR) are printed escaped", async () => {
  const dir = join(root, 'controls', 'gamebridge-tests');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'controls.jsonl'),
    HEAD('evil\x1b[2J\x07\rname').replace('../gamebridge.json', '../nowhere\\u001b]0;t\\u0007/gamebridge.json') +
      '\n{"do": "call_tool", "name": "start\\u001b[31m"}\n',
  );
  const r = await cli(['test'], join(root, 'controls'));
  expect(r.code).toBe(1);
  expect(r.out).toContain('✗ evil\\x1b[2J\\x07\\rname (');
  expect(r.out).toContain('nowhere\\x1b]0;t\\x07');
  expect(r.out + r.err).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
});

/** A project of seven saved tests, nested, beside a .jsonl that is not under gamebridge-tests. */
function shardsProject(): string {
  const dir = join(root, 'shards', 'gamebridge-tests', 'deep');
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < 7; i++) writeFileSync(join(dir, `t${i}.jsonl`), HEAD(`t${i}`) + '\n');
  writeFileSync(join(root, 'shards', 'not-a-test.jsonl'), '');
  return join(root, 'shards');
}

test('--shard splits the tests into disjoint parts that cover them all', () => {
  const all = discover([shardsProject()]);
  expect(all).toHaveLength(7);
  const parts = [1, 2, 3].map((i) => shardOf(all, `${i}/3`));
  expect(parts.flat().sort()).toEqual(all);
  expect(new Set(parts.flat()).size).toBe(7);
});

test('a bad --shard is refused as a usage error (exit 2)', async () => {
  const r = await cli(['test', '--shard', '4/3'], shardsProject());
  expect(r.err).toMatch(/--shard is i\/n with 1 <= i <= n/);
  expect(r.code).toBe(2);
});

test('--workers 4 runs four games at once and leaves none', async () => {
  const dir = join(root, 'four', 'gamebridge-tests');
  mkdirSync(dir, { recursive: true });
  copyFileSync(a.file, join(root, 'four', 'gamebridge.json'));
  // real time: each waits two seconds of its game's life, so the four overlap
  for (let i = 0; i < 4; i++)
    writeFileSync(
      join(dir, `w${i}.jsonl`),
      `${HEAD(`w${i}`, 'real-time')}\n{"do": "call_tool", "name": "start"}\n{"expect": {"path": "ui.screen", "equals": "GameScreen"}, "atMs": 2500}\n`,
    );
  let most = 0;
  const sampling = setInterval(() => (most = Math.max(most, games().length)), 100);
  const r = await cli(['test', '--workers', '4'], join(root, 'four'));
  clearInterval(sampling);
  expect(r.out).toMatch(/4 passed, 0 failed/);
  expect(r.code).toBe(0);
  expect(most).toBe(4);
  expect(games()).toEqual([]);
});

test('Ctrl-C mid-run (SIGINT to the whole process group) leaves no game', async () => {
  const dir = join(root, 'long', 'gamebridge-tests');
  mkdirSync(dir, { recursive: true });
  copyFileSync(a.file, join(root, 'long', 'gamebridge.json'));
  writeFileSync(
    join(dir, 'long.jsonl'),
    `${HEAD('long', 'real-time')}\n{"do": "call_tool", "name": "start", "atMs": 60000}\n`,
  );
  for (let i = 0; i < 50 && games().length; i++) await sleep(100);
  expect(games()).toEqual([]);
  const child = spawn(process.execPath, [CLI, 'test'], {
    cwd: join(root, 'long'),
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  for (let i = 0; i < 300 && !games().length; i++) await sleep(100);
  expect(games()).toHaveLength(1);
  process.kill(-child.pid!, 'SIGINT');
  expect(await exited).toBe(130);
  expect(err).toMatch(
    /Interrupted: stopping 1 running test\(s\) and their games…\nInterrupted: every game this run started is stopped\./,
  );
  // stopped before the exit, not after
  expect(games()).toEqual([]);
  for (let i = 0; i < 50 && games().length; i++) await sleep(100);
  expect(games()).toEqual([]);
});

const DIST = join(CLI, '..', '..');
const chromiumMissing = existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM}`;

test("Crate Stack's saved tests (recorded through the bridge by examples/record-tests.mjs) pass through the CLI", async () => {
  const r = await cli(['test'], join(process.cwd(), 'examples', 'crate-stack'));
  expect(r.out).toMatch(/✓ first-drop .*\n✓ stack-three /);
  expect(r.out).toMatch(/2 passed, 0 failed/);
  expect(r.code).toBe(0);
});

// A runtime that is missing skips here and fails under CI=true.
(chromiumMissing && process.env.CI !== 'true' ? test.skip : test)(
  "Star Catcher's saved tests pass through the CLI, in headless Chromium",
  async () => {
    const r = await cli(['test'], join(DIST, 'examples', 'phaser-game'));
    expect(r.out).toMatch(/✓ catch-left /);
    expect(r.out).toMatch(/1 passed, 0 failed/);
    expect(r.code).toBe(0);
  },
  120000,
);
