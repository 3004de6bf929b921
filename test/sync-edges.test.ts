/**
 * Command sync and wait_for against a game that misbehaves the way real ones do, through the
 * real proxy and daemon: a game restarted while a command or a wait is pending (a new process on
 * the same port, the port never quiet), and a game whose frame counter moves before its commands
 * are applied (frames-advanced confirmation must wait for the second frame).
 */
import { fixtureGame, fixtureHealth, getJson, startFixture } from './helpers/fixture-game.js';
import { gameCall } from './helpers/mcp.js';
import { pairSuite } from './helpers/pair.js';
import { waitFor } from './helpers/procs.js';

const suite = pairSuite('gb-sync-');
const start = (args: string[]) => startFixture(suite.reaper, suite.env, suite.trackGroup, args);
const health = fixtureHealth;
const gameOf = fixtureGame;
const respawn = (port: number) => getJson(port, '/respawn');
// a sync window far longer than a respawn takes on a loaded machine: the answer must be the restart, not a timeout
const open = () => suite.open(undefined, ['--timeout', '60000']);

test('a game restarted while a command is pending: the call is answered CallInterrupted, not a timeout', async () => {
  const port = await start(['--first-frame', '100000', '--hold']);
  const h = await open();
  const bumping = gameCall(h, port, 'bump', { tag: 'r1' }, 90000);
  await waitFor('the bump queued at the game', async () => (await gameOf(port)).received.includes('bump:r1'), 20000);
  await respawn(port);
  const r = await bumping;
  const now = await health(port);
  // the generation beside the answer: a failure shows whether the new process ever took over
  expect({ text: r.text, generation: now.generation }).toEqual({
    text: expect.stringMatching(new RegExp(`^CallInterrupted: Command 'bump' on port ${port} .*restarted`)),
    generation: 2, // a new process answers, and it never saw the bump
  });
  expect(await gameOf(port)).toEqual({ bumps: {}, received: [], generation: 2, pid: now.pid });
}, 120000);

test('a game restarted while wait_for polls: the wait is answered CallInterrupted, not a timeout', async () => {
  const port = await start(['--first-frame', '100000']);
  const h = await open();
  const waiting = gameCall(h, port, 'wait_for', { path: 'game.never', exists: true, timeoutMs: 60000 }, 90000);
  await waitFor('wait_for polling the game', async () => (await health(port)).statePolls >= 2, 20000);
  await respawn(port);
  const r = await waiting;
  expect({ text: r.text, generation: (await health(port)).generation }).toEqual({
    text: expect.stringMatching(new RegExp(`^CallInterrupted: wait_for game.never on port ${port} .*restarted`)),
    generation: 2,
  });
}, 120000);

test('frames-advanced: the state returned already shows the command applied, on a game that applies commands late in a frame', async () => {
  // 10 fps, commands applied 70 ms after the frame counter moved: the state one frame after the
  // command may not show it yet; two frames after, it must.
  const port = await start(['--no-completed-id', '--fps', '10', '--apply-late', '70']);
  const h = await open();
  for (const tag of ['f1', 'f2', 'f3']) {
    const r = await gameCall(h, port, 'bump', { tag });
    expect(r.json).toMatchObject({ port, applied: true, confirmation: 'frames-advanced' });
    expect(r.json.game.bumps[tag]).toBe(1);
  }
});
