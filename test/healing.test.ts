/**
 * Healing a saved test to the truth, not to green (docs/TESTS.md, "A node gone, a value
 * changed"): a test recorded through the real proxy and daemon on Crate Stack, whose click on
 * Start is saved with the button's role and name, then replayed by `game-bridge-mcp test` on two
 * later builds: one that relabelled the button ("Start game", ref start-game) and one whose
 * crates score otherwise (another seed). One home and one daemon for the file.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { bridgeFreeEnv, removeDir, tempHome, runCli } from './helpers/procs.js';
import { reapAndReport } from './helpers/fault.js';
import { writeProject, type Project } from './helpers/project.js';

let home: string;
let root: string;
let built: Project;
let renamed: Project;
let reseeded: Project;
let h: McpHandle;
let recorded: string;
const env = () => bridgeFreeEnv({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '120000' });

/** The CLI as a person runs it: exit code and stdout. */
const cli = (args: string[]) => runCli(args, { cwd: built.root, env: env() });

/** A copy of the recorded test under its own name, so each test replays the file as saved. */
function copyOf(name: string): string {
  const file = join(built.root, 'gamebridge-tests', `${name}.jsonl`);
  copyFileSync(recorded, file);
  return file;
}

const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n');

beforeAll(async () => {
  home = tempHome('gb-heal-');
  root = tempHome('gb-heal-proj-');
  const ports = await freeRange(12);
  built = writeProject(join(root, 'built'), { ports: ports.slice(0, 4) });
  renamed = writeProject(join(root, 'renamed'), { ports: ports.slice(4, 8), gameArgs: '--start-label "Start game"' });
  reseeded = writeProject(join(root, 'reseeded'), { ports: ports.slice(8), gameArgs: '--seed other' });
  h = await connect({ env: env(), cwd: built.root });
  const port = (await call(h, 'launch_instance')).json.port as number;
  const g = async (name: string, args: Record<string, unknown> = {}) => {
    const r = await gameCall(h, port, name, args);
    if (r.isError) throw new Error(r.text);
    return r.json;
  };
  await g('bridge.pause');
  await g('click', { ref: 'start' });
  await g('step', { frames: 5 });
  await g('drop_here');
  await g('step', { frames: 120, until: { path: 'game.score', gt: 0 } });
  await g('assert', { path: 'ui.screen', equals: 'GameScreen' });
  await g('assert', { path: 'game.score', equals: (await g('get_state', { path: 'game.score' })).value });
  recorded = (await g('save_test', { name: 'first-click' })).path as string;
}, 180_000);

afterAll(async () => {
  await h?.close();
  await reapAndReport(home);
  removeDir(home);
  removeDir(root);
});

test("save_test keeps a click's node by role and name beside its ref", () => {
  const click = lines(recorded)
    .map((l) => JSON.parse(l))
    .find((s) => s.name === 'bridge.click');
  expect(click).toMatchObject({ arguments: { ref: 'start' }, node: { role: 'button', name: 'Start' } });
});

test('a step whose button was relabelled fails as NodeGone, naming the nearest nodes by role and name', async () => {
  const file = copyOf('relabelled');
  const before = readFileSync(file, 'utf8');
  const r = await cli(['test', '--config', renamed.file, file]);
  expect(r.code).toBe(1);
  expect(r.out).toMatch(/\n {4}at gamebridge-tests\/relabelled\.jsonl:3 {2}bridge\.click \{"ref":"start"\}/);
  expect(r.out).toContain('\n    nearest:   button "Start game" [ref=start-game]');
  expect(r.out).toContain(
    'NodeGone: the UI has no node [ref=start] (button "Start" when recorded); nothing was sent. If the game renamed it on purpose, --update=locators re-binds the step to button "Start game" [ref=start-game]',
  );
  expect(r.out).toMatch(
    /If the game renamed it on purpose, .+ test --update=locators --config \S+ \S+relabelled\.jsonl re-binds/,
  );
  expect(r.out).not.toContain('AssertionFailed');
  expect(readFileSync(file, 'utf8')).toBe(before);
}, 120_000);

test('--update=locators re-binds a relabelled button and leaves every expect as it was', async () => {
  const file = copyOf('healed');
  const before = lines(file);
  const r = await cli(['test', '--update=locators', '--config', renamed.file, file]);
  expect(r.out).toContain('✓ first-click');
  expect(r.out).toContain(
    're-bound line 3: [ref=start] (button "Start" when recorded) → button "Start game" [ref=start-game]',
  );
  expect(r.code).toBe(0);
  const after = lines(file);
  expect(after).toHaveLength(before.length);
  const changed = after.map((l, i) => (l === before[i] ? null : i)).filter((i) => i !== null);
  expect(changed).toEqual([2]); // the click's line, and only it
  expect(JSON.parse(after[2])).toMatchObject({
    name: 'bridge.click',
    arguments: { ref: 'start-game' },
    node: { role: 'button', name: 'Start game' },
  });
  // the healed test passes on the new build as it stands
  expect((await cli(['test', '--config', renamed.file, file])).code).toBe(0);
}, 180_000);

test('--update=locators reports a changed score and leaves the file unchanged', async () => {
  const file = copyOf('rescored');
  const before = readFileSync(file, 'utf8');
  const r = await cli(['test', '--update=locators', '--config', reseeded.file, file]);
  expect(r.code).toBe(1);
  expect(r.out).toMatch(/\n {4}path: {6}game\.score\n {4}expected: {2}equals \d+\n {4}actual: {4}\d+\n/);
  expect(r.out).toContain('An expected value differs: unless the game changed it on purpose, that is a bug to report');
  expect(r.out).not.toContain('updated');
  expect(readFileSync(file, 'utf8')).toBe(before);
}, 120_000);

test('heal_test is listed with its arguments', async () => {
  const { prompts } = await h.client.listPrompts();
  expect(prompts.find((p) => p.name === 'heal_test')).toMatchObject({
    title: 'Heal a failing saved test',
    arguments: [
      { name: 'test', required: true },
      { name: 'failure', required: false },
    ],
  });
});

describe('heal_test', () => {
  let text = '';
  beforeAll(async () => {
    const got = await h.client.getPrompt({
      name: 'heal_test',
      arguments: { test: 'gamebridge-tests/first-click.jsonl' },
    });
    text = (got.messages[0].content as { text: string }).text;
  });

  test('walks through telling a change made on purpose from a bug, with the trace when there is one', () => {
    expect(text).toContain('A saved test fails: gamebridge-tests/first-click.jsonl.');
    expect(text).toMatch(/trace file/);
    expect(text).toContain(
      '`game-bridge-mcp test --update=locators <file>` re-binds the step and touches no expected value',
    );
  });

  test('says to report a bug instead of editing the test when a value changed', () => {
    expect(text).toMatch(/An expected value differs .*: do not edit the test/);
    expect(text).toMatch(/it is a bug: report it .* and leave the test failing/);
    expect(text).toMatch(/Never run plain `--update` to make a failure go away/);
  });
});
