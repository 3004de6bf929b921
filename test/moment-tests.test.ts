/**
 * A failing saved test opened at its failing step: run_test {name, keep: true} replays it for the
 * session up to the expect that does not hold (or the line `until` names) and leaves its game
 * there, paused and the session's, so a fixed build is brought back with launch_instance
 * {restart, to: "here"}; `game-bridge-mcp test FILE --debug` leaves the game for an agent or the
 * dashboard and prints its port. Crate Stack copies (their code changed as a fix would), the
 * real proxy, daemon and CLI.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { bridgeFreeEnv, removeDir, runCli, tempHome } from './helpers/procs.js';
import { reapAndReport } from './helpers/fault.js';
import { crateCopy, scoreOneMore, type CrateCopy } from './helpers/crate-copy.js';

let home: string;
let root: string;
let h: McpHandle;
let c: CrateCopy;
let file: string;
/** the recorded run: the frame of the expect, and the score it expects */
let expectFrame: number;
let expectLine: number;
const env = () => bridgeFreeEnv({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '120000' });

const g = async (port: number, name: string, args: Record<string, unknown> = {}) => {
  const r = await gameCall(h, port, name, args, 120000);
  if (r.isError) throw new Error(r.text);
  return r.json;
};

beforeAll(async () => {
  home = tempHome('gb-moment-tests-');
  root = tempHome('gb-moment-tests-proj-');
  c = crateCopy(join(root, 'game'), await freeRange(6));
  h = await connect({ env: env(), cwd: c.p.root });
  const port = (await call(h, 'launch_instance', { paused: true }, 60000)).json.port as number;
  await g(port, 'start');
  for (let k = 0; k < 6; k++) {
    await g(port, 'press', { input: k % 2 ? 'left' : 'right', frames: 5 });
    await g(port, 'drop', { x: 40 + 3 * k });
    await g(port, 'step', { frames: 30 });
  }
  const s = (await g(port, 'get_state')).state as Record<string, any>;
  expectFrame = s.simFrame;
  await g(port, 'assert', { path: 'game.score', equals: s.game.score });
  await g(port, 'step', { frames: 20 });
  file = (await g(port, 'save_test', { name: 'stack' })).path as string;
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  expectLine = lines.findIndex((l) => l.startsWith('{"expect"')) + 1;
  await call(h, 'stop_instance', { port });
}, 240000);

afterAll(async () => {
  await h?.close();
  await reapAndReport(home);
  removeDir(home);
  removeDir(root);
});

test('run_test {keep} on a failing test leaves the game at the failing step; a fixed build is brought back there', async () => {
  const undo = scoreOneMore(c.game);
  const r = await g(1, 'run_test', { name: 'stack', keep: true });
  expect(r).toMatchObject({ passed: false, frame: expectFrame, stoppedAt: { line: expectLine } });
  expect(r.failure).toMatchObject({ line: expectLine, condition: { path: 'game.score' } });
  const port = r.port as number;
  const s = (await g(port, 'get_state')).state as Record<string, any>;
  expect(s.simFrame).toBe(expectFrame);
  expect(s.clock.paused).toBe(true);
  expect(s.game.score).toBe(r.failure.actual);
  // the fix: the game scores as it did; the same moment, on the new build
  undo();
  const back = await call(h, 'launch_instance', { restart: port, to: 'here' }, 120000);
  expect(back.isError).toBe(false);
  expect(back.json).toMatchObject({ frame: expectFrame, reached: true, codeChanged: true });
  expect(back.json.state.game.score).toBe(r.failure.actual - 6);
  await call(h, 'stop_instance', { port });
}, 240000);

test('run_test {until, keep} stops before that line; the CLI’s --debug leaves the game and prints its port', async () => {
  const r = await g(1, 'run_test', { name: 'stack', until: expectLine - 1, keep: true });
  expect(r).toMatchObject({ passed: true, stoppedAt: { line: expectLine - 1 } });
  await call(h, 'stop_instance', { port: r.port });
  const undo = scoreOneMore(c.game);
  const cli = await runCli(['test', file, '--debug'], { cwd: c.p.root, env: env() });
  undo();
  expect(cli.code).toBe(1);
  const m = /The game stays on port (\d+), paused at simFrame (\d+) \(at the failing step\)/.exec(cli.out);
  expect(m).not.toBeNull();
  expect(Number(m![2])).toBe(expectFrame);
  const health = await fetch(`http://127.0.0.1:${m![1]}/health`);
  expect(health.ok).toBe(true);
}, 240000);
