/**
 * Back to a moment (docs/TOOLS.md, "Change the code, look again at the same moment"): a session
 * plays Crate Stack (a copy of its build, so the test can change its code) for hundreds of frames
 * of mixed inputs through the real proxy and daemon; launch_instance {restart, to: "here"}
 * brings a relaunched game to the same frame, with no parting when nothing changed and the
 * parting named at its path and frame after a change; rewind goes back and forward again to the
 * same states; a game without a clock and a run that cannot be reproduced are refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { bridgeFreeEnv, removeDir, ROOT, tempHome } from './helpers/procs.js';
import { crateCopy, scoreOneMore } from './helpers/crate-copy.js';
import { reapAndReport } from './helpers/fault.js';
import { writeProject, type Project } from './helpers/project.js';

let home: string;
let root: string;
let ports: number[];
const handles: McpHandle[] = [];
const env = () => bridgeFreeEnv({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '120000' });

beforeAll(async () => {
  home = tempHome('gb-moment-');
  root = tempHome('gb-moment-proj-');
  ports = await freeRange(24);
});

afterAll(async () => {
  for (const h of handles) await h.close();
  await reapAndReport(home);
  removeDir(home);
  removeDir(root);
});

let used = 0;
const copy = (dir: string, gameArgs?: string) => crateCopy(join(root, dir), ports.slice(used, (used += 4)), gameArgs);

async function session(p: Project): Promise<{ h: McpHandle; port: number }> {
  const h = await connect({ env: env(), cwd: p.root });
  handles.push(h);
  const launched = await call(h, 'launch_instance', { paused: true }, 60000);
  expect(launched.isError).toBe(false);
  return { h, port: launched.json.port as number };
}

const g = async (h: McpHandle, port: number, name: string, args: Record<string, unknown> = {}) => {
  const r = await gameCall(h, port, name, args, 60000);
  if (r.isError) throw new Error(r.text);
  return r.json;
};
const stateOf = async (h: McpHandle, port: number) => (await g(h, port, 'get_state')).state as Record<string, any>;

/** Play: start, then rounds of steering, stepping and dropping; the frames after each call, and the first with a score. */
async function play(h: McpHandle, port: number, rounds = 12): Promise<{ scoredAt: number }> {
  await g(h, port, 'start');
  let scoredAt = -1;
  for (let k = 0; k < rounds; k++) {
    await g(h, port, 'press', { input: k % 3 === 0 ? 'left' : 'right', frames: 4 + (k % 5) });
    await g(h, port, 'step', { frames: 7 + k });
    await g(h, port, k % 2 ? 'drop_here' : 'drop', k % 2 ? {} : { x: 30 + 5 * k });
    await g(h, port, 'step', { frames: 15 });
    const s = await stateOf(h, port);
    if (scoredAt < 0 && s.game.score > 0) scoredAt = s.simFrame;
  }
  return { scoredAt };
}

const comparable = (s: Record<string, any>) => {
  const { frame: _f, events: _e, clock: _c, ...rest } = s;
  return rest;
};

test('restart {to: "here"} with nothing changed reaches the same frame and state, with no parting', async () => {
  const { p } = copy('same');
  const { h, port } = await session(p);
  await play(h, port);
  const before = await stateOf(h, port);
  expect(before.simFrame).toBeGreaterThanOrEqual(300);
  const r = await call(h, 'launch_instance', { restart: port, to: 'here' }, 120000);
  expect(r.isError).toBe(false);
  expect(r.json).toMatchObject({ port, frame: before.simFrame, target: before.simFrame, reached: true, parting: null });
  expect(r.json.codeChanged).toBe(false);
  const after = await stateOf(h, port);
  expect(after.clock.paused).toBe(true);
  expect(comparable(after)).toEqual(comparable(before));
}, 240000);

test('after a change to the game’s code, restart {to: "here"} reaches the frame and names the parting’s path and frame', async () => {
  const { p, game } = copy('changed');
  const { h, port } = await session(p);
  const { scoredAt } = await play(h, port);
  expect(scoredAt).toBeGreaterThan(0);
  const before = await stateOf(h, port);
  scoreOneMore(game);
  const r = await call(h, 'launch_instance', { restart: port, to: 'here' }, 120000);
  expect(r.isError).toBe(false);
  expect(r.json).toMatchObject({ frame: before.simFrame, reached: true, codeChanged: true });
  expect(r.json.parting).toMatchObject({ path: 'game.score', frame: scoredAt });
  expect(r.json.parting.now).toBe(r.json.parting.recorded + 1);
  expect(r.json.summary).toContain('game.score');
  // stopAtDivergence: the replay stops there, paused
  const stopped = await call(h, 'launch_instance', { restart: port, to: 'here', stopAtDivergence: true }, 120000);
  expect(stopped.isError).toBe(false);
}, 240000);

test('rewind 60 frames: the state recorded at that frame; stepping forward again gives the same states', async () => {
  const { p } = copy('rewind');
  const { h, port } = await session(p);
  await play(h, port, 8);
  const at = await stateOf(h, port);
  await g(h, port, 'press', { input: 'left', frames: 20 });
  const mid = await stateOf(h, port);
  await g(h, port, 'step', { frames: 40 });
  const end = await stateOf(h, port);
  const r = await g(h, port, 'rewind', { frames: 60 });
  expect(r).toMatchObject({ frame: at.simFrame, reached: true, parting: null });
  expect(comparable(await stateOf(h, port))).toEqual(comparable(at));
  await g(h, port, 'press', { input: 'left', frames: 20 });
  expect(comparable(await stateOf(h, port))).toEqual(comparable(mid));
  await g(h, port, 'step', { frames: 40 });
  expect(comparable(await stateOf(h, port))).toEqual(comparable(end));
  // the recording was cut at the rewind: the branch is what save_test saves
  const saved = await g(h, port, 'save_test', { name: 'branch' });
  const lines = readFileSync(saved.path as string, 'utf8')
    .trim()
    .split('\n');
  expect(lines.slice(-2).map((l) => JSON.parse(l).name)).toEqual(['bridge.press', 'bridge.step']);
}, 240000);

test('a game without a clock is refused with CapabilityMissing, and nothing is relaunched', async () => {
  const { p } = copy('no-clock', '--no-time');
  const { h, port } = await session(p);
  await g(h, port, 'start');
  const pid = (await call(h, 'list_instances')).json.live.find((i: any) => i.port === port).pid;
  const r = await call(h, 'launch_instance', { restart: port, to: 'here' }, 60000);
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(/^CapabilityMissing: .*clock/);
  expect((await call(h, 'list_instances')).json.live.find((i: any) => i.port === port).pid).toBe(pid);
}, 120000);

test('a run that cannot be reproduced is refused, saying where it parted and that nothing was changed', async () => {
  const flaky = join(home, `flaky-${Date.now()}`);
  const p = writeProject(join(root, 'flaky'), {
    ports: ports.slice(used, (used += 4)),
    name: 'Counter',
    command: `"${process.execPath}" "${join(ROOT, 'test', 'fixtures', 'counter-game.mjs')}" {port} --flaky-file "${flaky}"`,
  });
  const { h, port } = await session(p);
  await g(h, port, 'step', { frames: 10 });
  await g(h, port, 'inc');
  await g(h, port, 'step', { frames: 10 });
  const r = await call(h, 'launch_instance', { restart: port, to: 'here' }, 120000);
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(
    /^BridgeUsageError: .*the replay parted at frame 10 before reaching frame 20, and nothing was changed/,
  );
  expect(r.text).toContain('game.count');
}, 120000);
