/**
 * A composite call in a saved test (docs/COMPOSITES.md, docs/TESTS.md): an agent on a paused game
 * calls a composite that starts a round, drops a crate and steps the clock, checks the result and
 * saves the session; the CLI runner replays it frame-exact, twice, to the same checked state. The
 * real proxy and daemon through the SDK client, the example game and the real CLI runner.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reapAndReport } from './helpers/fault.js';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { bridgeFreeEnv, removeDir, tempHome, runCli } from './helpers/procs.js';
import { writeProject, type Project } from './helpers/project.js';

let home: string;
let project: Project;
let mcp: McpHandle;
const pids: number[] = [];
const env = () => bridgeFreeEnv({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '120000' });

const cli = (args: string[]) => runCli(args, { cwd: project.root, env: env() });

beforeAll(async () => {
  home = tempHome('gb-compr-');
  const root = tempHome('gb-compr-proj-');
  project = writeProject(root, { ports: await freeRange(4), extra: { composites: './bridge/composites.mjs' } });
  mkdirSync(join(root, 'bridge'));
  // Its own steps move the clock: the round only counts frames once started, so a replay that
  // stepped to where the composite ended before running it would find the menu's frozen clock.
  writeFileSync(
    join(root, 'bridge', 'composites.mjs'),
    `export default [
  {
    name: 'open-and-drop',
    description: 'Start a round, drop a crate at x and let it fall for 12 frames.',
    args: [{ name: 'x', type: 'number', required: true }],
    async run(ctx) {
      await ctx.call('start');
      await ctx.call('drop', { x: ctx.args.x });
      await ctx.call('step', { frames: 12 });
      return { crates: (await ctx.state()).game.crates.length };
    },
  },
];
`,
  );
  mcp = await connect({
    args: ['--no-scan'],
    env: { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '120000' },
    cwd: root,
  });
}, 60000);

afterAll(async () => {
  await mcp?.close();
  await reapAndReport(home, pids);
  removeDir(home);
  removeDir(project.root);
});

test('a saved test keeps a composite call without its end frame, so the runner replays it frame-exact twice alike', async () => {
  const l = await call(mcp, 'launch_instance', { paused: true }, 60000);
  expect(l.isError ? l.text : l.json.paused).toBe(true);
  pids.push(l.json.pid);
  const port = l.json.port as number;
  const c = await gameCall(mcp, port, 'open-and-drop', { x: 30 }, 60000);
  expect(c.isError ? c.text : c.json.via).toBe('composite');
  expect((await gameCall(mcp, port, 'bridge.step', { frames: 5 })).isError).toBe(false);
  const state = (await gameCall(mcp, port, 'get_state')).json.state;
  expect(state.simFrame).toBe(17);
  for (const [path, equals] of [
    ['simFrame', 17],
    ['game.crates.length', 1],
    ['game.score', state.game.score],
    ['game.crates.0.y', state.game.crates[0].y],
  ] as const)
    expect((await gameCall(mcp, port, 'bridge.assert', { path, equals })).isError).toBe(false);
  const saved = await gameCall(mcp, port, 'save_test', { name: 'open-and-drop' });
  expect(saved.isError ? saved.text : 'saved').toBe('saved');
  const lines = readFileSync(join(project.root, 'gamebridge-tests', 'open-and-drop.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((x) => JSON.parse(x));
  expect(lines[0].timing).toBe('frame-exact');
  expect(lines[1]).toEqual({ do: 'call_tool', name: 'open-and-drop', arguments: { x: 30 } });
  for (const run of [1, 2]) {
    const r = await cli(['test']);
    expect(`run ${run}: ${r.out}${r.err}`).toMatch(/^run \d: ✓ open-and-drop \(/);
    expect(r.code).toBe(0);
  }
}, 240000);
