/**
 * Each kit example driven through the real bridge (in-process server, official SDK client):
 * launch_instance from the example's own gamebridge.json, list_toolsets, a game command,
 * the play tools (pause, hold, step, release, press) on the kit's clock and held inputs,
 * the bridge's screenshot (or CapabilityMissing naming it, where the game gives no frames),
 * stop_instance, and nothing left running; on the LÖVE Walker, the analog stick, held inputs and
 * a tap read through LÖVE's own joystick and touch queries. Frog Hop (pygame) too: launched with
 * the environment its gamebridge.json sets (the dummy video driver), its screenshot the pygame
 * surface, its stick, buttons and fingers read through pygame's own joystick and touch queries.
 */
import { join } from 'node:path';
import { decodePng } from '../helpers/png.js';
import { call, connect, gameCall, type McpHandle } from '../helpers/mcp.js';
import { ROOT, Reaper, removeDir, tempHome, waitFor, waitGone } from '../helpers/procs.js';
import { KIT_EXAMPLES } from './examples.js';
import {
  CSHARP_EXAMPLE,
  CSHARP_READY_MS,
  GODOT_EXAMPLE,
  GODOT_READY_MS,
  LOVE_EXAMPLE,
  LOVE_READY_MS,
  PY_EXAMPLE,
  describeIfRuntime,
  killWithHome,
  startDisplay,
  processesWithHome,
} from './kit-game.js';

const homes: string[] = [];
const reaper = new Reaper();
afterAll(async () => {
  homes.forEach(killWithHome);
  homes.forEach(removeDir);
  await reaper.reap();
});

/**
 * On the paused LÖVE Walker, which polls its first joystick's first axis for its walk and
 * love.touch for its fingers: set_axis and hold reach those queries, a tap's finger too.
 */
async function loveQueries(h: McpHandle, port: number): Promise<void> {
  expect((await gameCall(h, port, 'set_axis', { input: 'walk', value: 0.5, ms: 30000 })).json).toMatchObject({
    applied: true,
  });
  await gameCall(h, port, 'hold', { input: 'right', ms: 30000 });
  const pad = await gameCall(h, port, 'get_state', { path: 'game.pad' });
  expect(pad.json.value).toEqual([0.5, false, true]); // axis 1, button 1 (left), gamepad button "right"
  const x0 = (await gameCall(h, port, 'get_state', { path: 'game.x' })).json.value;
  const step = await gameCall(h, port, 'step', { frames: 2 });
  expect(step.json.game.walk).toBe(0.5); // read in love.update from the joystick
  expect(step.json.game.x).toBeCloseTo(x0 + 2 * (2 + 1), 3); // right held, and half speed from the stick
  await gameCall(h, port, 'release', {});
  const tap = await gameCall(h, port, 'tap', { x: 300, y: 400, frames: 2 });
  expect(tap.json.game.lastFingers).toEqual([[300, 400]]); // polled in love.update while it was down
  expect(tap.json.game.fingers).toEqual([]);
}

/**
 * The bridge's `screenshot` on a Walker: the picture's size, or, for a game that gives no
 * frames, CapabilityMissing naming screenshot (and `watch` refused the same way, no frame let
 * pass).
 */
async function expectPicture(h: McpHandle, port: number, size: readonly [number, number] | null): Promise<void> {
  const shot = await gameCall(h, port, 'screenshot');
  if (size) {
    expect(shot.isError).toBe(false);
    const image = (shot.res as any).content.find((c: any) => c.type === 'image');
    const png = decodePng(Buffer.from(image.data, 'base64'));
    expect([png.width, png.height]).toEqual(size);
    return;
  }
  expect(shot.json).toMatchObject({ kind: 'CapabilityMissing', capability: 'screenshot', tool: 'screenshot' });
  const frame = (await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value;
  const watch = await gameCall(h, port, 'watch', { frames: 2 });
  expect(watch.json).toMatchObject({ kind: 'CapabilityMissing', capability: 'screenshot', tool: 'watch' });
  expect((await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value).toBe(frame);
}

describe.each([
  ['Python', 'python', PY_EXAMPLE, 'Walker', 60000, null, null],
  // drawn by godot3-runner on a virtual display (its run.sh), so the bridge films it
  ['Godot', 'godot', GODOT_EXAMPLE, 'Walker (Godot)', GODOT_READY_MS, null, [1024, 600]],
  ['C#', 'csharp', CSHARP_EXAMPLE, 'Walker (C#)', CSHARP_READY_MS, null, null],
  ['LÖVE', 'love', LOVE_EXAMPLE, 'Walker (LÖVE)', LOVE_READY_MS, loveQueries, [1280, 720]],
] as const)('%s Walker through the bridge', (_title, kit, exampleDir, name, readyMs, queries, picture) => {
  describeIfRuntime(kit, () =>
    test(
      'launch from its gamebridge.json, drive it, step its clock, stop it, nothing left',
      async () => {
        const home = tempHome('gb-kitbridge-');
        homes.push(home);
        // A LÖVE game needs a display: a virtual one of its own, passed on as a desktop's would be.
        const display: Record<string, string> =
          kit === 'love' ? { DISPLAY: await startDisplay(reaper, process.env) } : {};
        const h = await connect({
          args: ['--no-daemon', '--no-scan', '--config', join(exampleDir, 'gamebridge.json')],
          env: { GAME_BRIDGE_HOME: home, ...display },
        });
        try {
          const launched = await call(h, 'launch_instance', {}, readyMs + 10000);
          expect(launched.isError).toBe(false);
          const { port, pid } = launched.json;
          expect(launched.json).toMatchObject({ name, version: '1.0.0', cwd: exampleDir });

          const sets = await call(h, 'list_toolsets', { port });
          expect(sets.json.toolsets.map((t: any) => t.name)).toEqual(expect.arrayContaining(['play', 'bridge']));

          const jump = await gameCall(h, port, 'jump');
          expect(jump.json).toMatchObject({
            applied: true,
            confirmation: 'completedCommandId',
            screen: 'GameScreen',
            game: { jumps: 1 },
          });

          // The bridge's play tools, on the kit's reserved commands.
          expect((await gameCall(h, port, 'bridge.pause')).json).toMatchObject({ applied: true });
          await gameCall(h, port, 'teleport', { x: 20 });
          const hold = await gameCall(h, port, 'hold', { input: 'right', ms: 30000 });
          expect(hold.json).toMatchObject({ applied: true, input: 'right' });
          const s0 = (await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value;
          const step = await gameCall(h, port, 'step', { frames: 5 });
          expect(step.json).toMatchObject({
            applied: true,
            stepped: 5,
            confirmation: 'completedCommandId',
            sessionEpoch: 1,
          });
          expect(step.json.game.x).toBeCloseTo(30, 3); // the answer is the state after the 5 frames, right held on each
          expect((await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value).toBe(s0 + 5);
          const held = await gameCall(h, port, 'get_state', { path: 'input.held' });
          expect(held.json.value).toEqual([expect.objectContaining({ input: 'right', owner: expect.any(String) })]);
          expect((await gameCall(h, port, 'release', {})).json).toMatchObject({ applied: true });
          expect((await gameCall(h, port, 'get_state', { path: 'input.held' })).json.value).toEqual([]);
          const press = await gameCall(h, port, 'press', { input: 'right', frames: 3 });
          expect(press.json).toMatchObject({ applied: true, input: 'right', frames: 3 });
          expect(press.json.game.x).toBeCloseTo(36, 3); // held for exactly the 3 stepped frames, then released
          expect((await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value).toBe(s0 + 8);
          await queries?.(h, port);
          await expectPicture(h, port, picture);

          expect(processesWithHome(home)).toContain(pid); // what the final check looks for is findable
          const stop = await call(h, 'stop_instance', { port });
          expect(stop.json).toEqual({ port, stopped: true, how: 'closed cleanly', view: 'debug' });
          expect(await waitGone(pid, 5000)).toBe(true);
        } finally {
          await h.close();
        }
        await waitFor('every process of this test gone', () => processesWithHome(home).length === 0, 10000);
      },
      readyMs + 40000,
    ),
  );
});

const pygameMissing = KIT_EXAMPLES.find((k) => k.example === 'Frog Hop')!.missing();
const pygameTest = pygameMissing && process.env.CI !== 'true' ? test.skip : test;

describe('Frog Hop (pygame) through the bridge', () => {
  pygameTest(
    `launch with its gamebridge.json's environment, screenshot the pygame surface, stop it${pygameMissing ? ` (${pygameMissing})` : ''}`,
    async () => {
      expect(pygameMissing).toBeNull(); // under CI=true a missing pygame fails here
      const home = tempHome('gb-kitbridge-');
      homes.push(home);
      const example = join(ROOT, 'examples', 'pygame-game');
      const h = await connect({
        args: ['--no-daemon', '--no-scan', '--config', join(example, 'gamebridge.json')],
        env: { GAME_BRIDGE_HOME: home },
      });
      try {
        const launched = await call(h, 'launch_instance', {}, 70000);
        expect(launched.isError).toBe(false);
        const { port, pid } = launched.json;
        expect(launched.json).toMatchObject({ name: 'Frog Hop', version: '1.0.0', cwd: example });
        const shot = await gameCall(h, port, 'screenshot');
        expect(shot.isError).toBe(false);
        const image = (shot.res as any).content.find((c: any) => c.type === 'image');
        const png = decodePng(Buffer.from(image.data, 'base64'));
        expect([png.width, png.height]).toEqual([480, 320]);
        expect((await gameCall(h, port, 'start')).json).toMatchObject({ applied: true, screen: 'GameScreen' });
        expect((await gameCall(h, port, 'step', { frames: 1 })).json).toMatchObject({ applied: true, stepped: 1 });
        // pygame's own joystick and touch queries, which Frog Hop polls every frame, follow the agent
        await gameCall(h, port, 'set_axis', { input: 'steer', value: 0.5, ms: 30000 });
        await gameCall(h, port, 'hold', { input: 'right', ms: 30000 });
        const polled = async (path: string) => (await gameCall(h, port, 'get_state', { path })).json.value;
        await waitFor(
          'the stick and the held input polled',
          async () => String(await polled('game.pad')) === '0.5,false,true',
          10000,
        );
        await gameCall(h, port, 'release', {});
        const tap = await gameCall(h, port, 'tap', { x: 200, y: 150, frames: 2 });
        expect(tap.json.game.lastFingers).toEqual([[200, 150]]);
        const stop = await call(h, 'stop_instance', { port });
        expect(stop.json).toEqual({ port, stopped: true, how: 'closed cleanly', view: 'debug' });
        expect(await waitGone(pid, 5000)).toBe(true);
      } finally {
        await h.close();
      }
      await waitFor('every process of this test gone', () => processesWithHome(home).length === 0, 10000);
    },
    100000,
  );
});
