/**
 * A skill's effect drives replay across a daemon kill -9 (docs/ARCHITECTURE.md, docs/COMPOSITES.md
 * "Skills"): a read-only skill in flight is re-sent by the proxy and gets the right answer; a
 * game-affecting one is answered with CallInterrupted and reaches the game exactly once. Real
 * proxy, real daemon, real games; the helpers of test/pair-games.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gameState, unreadBytesAt } from './helpers/fault.js';
import { fixtureGame, fixtureHealth, getJson, startFixture } from './helpers/fixture-game.js';
import { call, gameCall } from './helpers/mcp.js';
import { pairSuite } from './helpers/pair.js';
import { freePort } from './helpers/ports.js';
import { writeProject } from './helpers/project.js';
import { startExampleGame, waitFor, waitGone } from './helpers/procs.js';

const suite = pairSuite('gb-skillr-');
const { reaper } = suite;

/** A client in a project whose gamebridge.json names `port` (its skills live beside it). */
const openIn = (port: number) => suite.open(writeProject(join(suite.home, 'project'), { ports: [port] }).root);

test('a read-only skill in flight survives kill -9 of the daemon: re-sent, it gets the right answer', async () => {
  const port = await startFixture(reaper, suite.env, suite.trackGroup);
  const h = await openIn(port);
  const d = await gameCall(h, port, 'define_skill', {
    name: 'await-bump',
    description: 'Wait until the y bump has landed, then read it.',
    steps: [
      { wait: { path: 'game.bumps.y', equals: 1 }, timeoutMs: 30000 },
      { do: 'call_tool', name: 'get_state' },
    ],
  });
  expect(d.isError ? d.text : 'kept').toBe('kept');
  const first = await suite.daemonPid();
  const waiting = gameCall(h, port, 'await-bump', {}, 60000);
  const polled = (await fixtureHealth(port)).statePolls;
  await waitFor('the skill polling the game', async () => (await fixtureHealth(port)).statePolls >= polled + 2, 20000);
  process.kill(first, 'SIGKILL');
  await waitGone(first);
  await getJson(port, '/command?cmd=bump&tag=y');
  const r = await waiting;
  expect(r.isError ? r.text : 'ok').toBe('ok');
  expect(r.json).toMatchObject({ via: 'skill', skill: 'await-bump', ran: 2 });
  expect(r.json.steps[0].answer).toMatchObject({ matched: true });
  expect((await fixtureGame(port)).bumps.y).toBe(1);
  expect(await suite.daemonPid(first)).not.toBe(first);
}, 120000);

test('a game-affecting skill acked before kill -9 is answered CallInterrupted and reaches the game exactly once', async () => {
  const port = await freePort();
  await startExampleGame(reaper, port, [], suite.env);
  const h = await openIn(port);
  const d = await gameCall(h, port, 'define_skill', {
    name: 'bump-tag',
    description: 'Bump a tag.',
    args: [{ name: 'tag', type: 'string', required: true }],
    steps: [{ do: 'call_tool', name: 'bump', arguments: { tag: '${tag}' } }],
  });
  expect(d.isError ? d.text : 'kept').toBe('kept');
  const first = await suite.daemonPid();
  const frozen = (await (await fetch(`http://127.0.0.1:${port}/command?cmd=freeze&ms=4000`)).json()) as {
    accepted: boolean;
  };
  expect(frozen.accepted).toBe(true); // the game stalls, HTTP included
  const bumping = gameCall(h, port, 'bump-tag', { tag: 'x' }, 60000);
  // acked (as unsafe, unless the verdict is wrong) before it runs: once the bump waits unread at the frozen game, it is in flight
  await waitFor('the bump waiting at the frozen game', () => unreadBytesAt(port) > 0, 3000);
  process.kill(first, 'SIGKILL');
  const r = await bumping;
  expect(r.text).toMatch(/^CallInterrupted: /);
  await waitFor('the bump applied after the freeze', async () => (await gameState(port)).game.bumps.x === 1, 20000);
  // A re-sent skill would have bumped before this call, sent after the answer.
  const after = await gameCall(h, port, 'bump', { tag: 'after' }, 30000);
  expect(after.isError ? after.text : 'ok').toBe('ok');
  expect((await gameState(port)).game.bumps).toEqual({ x: 1, after: 1 });
}, 120000);

test('a saved test keeps a skill call as one step that run_test replays by running the skill again', async () => {
  const ports = [await freePort(), await freePort()];
  const project = writeProject(join(suite.home, 'project'), { ports: [Math.min(...ports), Math.max(...ports)] });
  const h = await suite.open(project.root);
  const l = await call(h, 'launch_instance', {}, 60000);
  expect(l.isError ? l.text : 'ok').toBe('ok');
  suite.trackGroup(l.json.pid);
  const port = l.json.port as number;
  const d = await gameCall(h, port, 'define_skill', {
    name: 'start-and-drop',
    description: 'Start a round and drop a crate at x.',
    args: [{ name: 'x', type: 'number', required: true }],
    steps: [
      { do: 'call_tool', name: 'start' },
      { do: 'call_tool', name: 'drop', arguments: { x: '${x}', settle: false } },
    ],
  });
  expect(d.isError ? d.text : 'kept').toBe('kept');
  expect((await gameCall(h, port, 'start-and-drop', { x: 30 })).isError).toBe(false);
  expect((await gameCall(h, port, 'wait_for', { path: 'game.crates.length', gte: 1 })).isError).toBe(false);
  const saved = await gameCall(h, port, 'save_test', { name: 'with-skill' });
  expect(saved.isError ? saved.text : 'saved').toBe('saved');
  const lines = readFileSync(join(project.root, 'gamebridge-tests', 'with-skill.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((x) => JSON.parse(x));
  expect(lines.map((x) => x.name ?? `expect ${x.expect.path}`)).toEqual([
    'start-and-drop',
    'expect game.crates.length',
  ]);
  expect(lines[0]).toMatchObject({ do: 'call_tool', name: 'start-and-drop', arguments: { x: 30 } });
  const run = await gameCall(h, port, 'run_test', { name: 'with-skill' }, 120000);
  expect(run.isError ? run.text : run.json.passed ? 'passed' : JSON.stringify(run.json)).toBe('passed');
}, 180000);
