/**
 * Held inputs over the daemon's life, through the real CLI, daemon and SDK client: the bridge
 * lets go of a session's inputs before it stops a game and before it shuts down (the game's own
 * log says whether they were still held when it was asked to close), and a game enforces its
 * leases by itself when the daemon is killed with -9. Plus the Godot example launched from its
 * own gamebridge.json, driven with a command, hold and step, and stopped with nothing left.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { publishedDaemon } from './helpers/fault.js';
import { call, cleanedAfterAll, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { alive, ROOT, stopDaemon, tempHome, waitFor, waitGone } from './helpers/procs.js';
import { GODOT_EXAMPLE, getJson, processesWithHome } from './kits/kit-game.js';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'held-game.mjs');
const { homes, handles } = cleanedAfterAll();

/** A home with a gamebridge.json launching the fixture on a port range of its own, and a client in it. */
async function setup(): Promise<{ h: McpHandle; home: string }> {
  const home = tempHome('gb-playlife-');
  homes.push(home);
  const [first] = await freeRange(2);
  writeFileSync(
    join(home, 'gamebridge.json'),
    JSON.stringify({
      name: 'Held',
      launch: {
        command: `${process.execPath} ${FIXTURE} {port}`,
        portRange: `${first}-${first + 1}`,
        readyTimeoutMs: 30000,
      },
    }),
  );
  const h = await connect({ env: { GAME_BRIDGE_HOME: home }, cwd: home, args: ['--no-scan'] });
  handles.push(h);
  return { h, home };
}

const heldOn = async (port: number) =>
  ((await getJson(port, '/state')).input.held as Array<{ input: string }>).map((x) => x.input);

test('stop_instance lets go of held inputs before it asks the game to close', async () => {
  const { h } = await setup();
  const { port } = (await call(h, 'launch_instance')).json;
  await gameCall(h, port, 'hold', { input: 'left', ms: 60000 });
  expect(await heldOn(port)).toEqual(['left']);
  const stop = await call(h, 'stop_instance', { port });
  expect(stop.json).toMatchObject({ stopped: true, how: 'closed cleanly' });
  expect((await call(h, 'instance_log', { port })).json.lines.join('\n')).toMatch(
    /closing \(command\); left held: false/,
  );
}, 60000);

test("through the daemon, a session that ends lets go at once of the inputs it held, not of others'", async () => {
  const { h: a, home } = await setup();
  const b = await connect({ env: { GAME_BRIDGE_HOME: home }, cwd: home, args: ['--no-scan'] });
  handles.push(b);
  const { port } = (await call(a, 'launch_instance')).json;
  await gameCall(a, port, 'hold', { input: 'left', ms: 60000 });
  await gameCall(b, port, 'hold', { input: 'left', ms: 60000 });
  expect(await heldOn(port)).toEqual(['left', 'left']); // one hold per owner
  await b.close();
  // The leases run for a minute: only the daemon letting go can end the other hold this soon.
  await waitFor('the ended session released', async () => ((await heldOn(port)).join() === 'left' ? true : null), 5000);
  expect(await heldOn(port)).toEqual(['left']);
}, 60000);

test('daemon shutdown (game-bridge-mcp stop) lets go of held inputs before it reaps the games', async () => {
  const { h, home } = await setup();
  const { port, logFile } = (await call(h, 'launch_instance')).json;
  await gameCall(h, port, 'hold', { input: 'left', ms: 60000 });
  expect(await heldOn(port)).toEqual(['left']);
  stopDaemon(home);
  expect(readFileSync(logFile, 'utf8')).toMatch(/closing \(command\); left held: false/);
}, 60000);

test('a daemon killed with -9 cannot let go: the game ends the lease by itself', async () => {
  const { h, home } = await setup();
  const { port, pid } = (await call(h, 'launch_instance')).json;
  await gameCall(h, port, 'hold', { input: 'left', ms: 2500 });
  const daemon = publishedDaemon(home).pid;
  process.kill(daemon, 'SIGKILL');
  await waitGone(daemon);
  expect(await heldOn(port)).toEqual(['left']); // nobody released it
  const t0 = Date.now();
  await waitFor('the lease to run out', async () => (await heldOn(port)).length === 0, 10000, 50);
  expect(Date.now() - t0).toBeLessThan(5000);
  expect(alive(pid)).toBe(true); // the game lives on, for the next daemon to re-adopt
  await h.close();
  process.kill(pid, 'SIGKILL');
}, 60000);

test('the Godot example is played from its gamebridge.json through launch, a command, hold, step and stop, leaving nothing', async () => {
  const home = tempHome('gb-playlife-godot-');
  homes.push(home);
  // started in the example's folder, as a client opened on that project would be ({config} may not leave the session's project)
  const h = await connect({ env: { GAME_BRIDGE_HOME: home }, cwd: GODOT_EXAMPLE, args: ['--no-scan'] });
  handles.push(h);
  const launched = await call(h, 'launch_instance', {}, 120000);
  expect(launched.isError ? launched.text : 'launched').toBe('launched');
  const { port, pid } = launched.json;
  expect(launched.json).toMatchObject({ name: 'Walker (Godot)' });
  // its run.sh execs the Godot that draws, on a virtual display of its own
  expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toMatch(/godot3-runner/);
  const sets = await call(h, 'list_toolsets', { port });
  expect(sets.json.toolsets.map((t: any) => t.name)).toEqual(expect.arrayContaining(['play', 'bridge']));
  const tp = await gameCall(h, port, 'teleport', { x: 100 });
  expect(tp.json).toMatchObject({ applied: true, via: 'manifest', game: { x: 100 } });
  await gameCall(h, port, 'pause');
  await gameCall(h, port, 'hold', { input: 'right', ms: 60000 });
  const before = (await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value as number;
  const step = await gameCall(h, port, 'step', { frames: 5 });
  expect(step.json).toMatchObject({ stepped: 5, applied: true });
  expect((await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value).toBe(before + 5);
  expect(step.json.game.x).toBeGreaterThan(100);
  await gameCall(h, port, 'release');
  const stop = await call(h, 'stop_instance', { port });
  expect(stop.json).toMatchObject({ stopped: true });
  expect(await waitGone(pid, 5000)).toBe(true);
  const godotLeft = processesWithHome(home).filter((p) => {
    try {
      return /godot3-|Xvfb/.test(readFileSync(`/proc/${p}/cmdline`, 'utf8'));
    } catch {
      return false;
    }
  });
  expect(godotLeft).toEqual([]);
}, 180000);
