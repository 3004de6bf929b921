/**
 * Playing in time on the Node game kit, in-process over real HTTP: capabilities, held inputs
 * with owners and game-enforced leases, the agent's clock (pause, resume, step exactly N), and
 * session epochs. The same core serves the web kit (web-kit.test.ts drives it in Chromium).
 */
import { createGameSurface, type GameSurface, type GameSurfaceOptions } from '../kits/js/index.js';
import { removeDir, tempHome } from './helpers/procs.js';

const surfaces: GameSurface[] = [];
const homes: string[] = [];
afterEach(async () => {
  await Promise.all(surfaces.splice(0).map((s) => s.close()));
  homes.splice(0).forEach(removeDir);
});

interface Harness {
  surface: GameSurface;
  get: (path: string) => Promise<any>;
  cmd: (cmd: string, args?: Record<string, string>) => Promise<any>;
  /** One game frame as a game loop runs it: tick, then simulate what it grants. */
  frame: () => number;
  simulated: () => number;
}

async function start(extra: Partial<GameSurfaceOptions> = {}): Promise<Harness> {
  const home = tempHome('gb-kit-time-');
  homes.push(home);
  let simulated = 0;
  const surface = createGameSurface({
    port: 0,
    name: 'Time Test',
    version: '1.0.0',
    env: { GAME_BRIDGE_HOME: home },
    handleSignals: false,
    snapshot: () => ({ game: { simulated } }),
    commands: { add: (a) => void a },
    manifest: { toolsets: [] },
    inputs: ['left', 'right', 'jump'],
    clock: true,
    ...extra,
  });
  surfaces.push(surface);
  await surface.listen();
  const get = async (path: string) => (await fetch(`http://127.0.0.1:${surface.port}${path}`)).json();
  const cmd = (c: string, args: Record<string, string> = {}) =>
    get(`/command?${new URLSearchParams({ cmd: c, ...args })}`);
  const frame = () => {
    const n = surface.tick();
    simulated += n;
    return n;
  };
  return { surface, get, cmd, frame, simulated: () => simulated };
}

test('capabilities are declared in /health and in /tools game only when enabled', async () => {
  const h = await start();
  expect(await h.get('/health')).toEqual({ ok: true, frame: 0, capabilities: ['input', 'clock'] });
  expect((await h.get('/tools')).game).toEqual({
    name: 'Time Test',
    version: '1.0.0',
    protocol: 1,
    capabilities: ['input', 'clock'],
    inputs: ['left', 'right', 'jump'],
  });
  const plain = await start({ inputs: undefined, clock: false });
  expect(await plain.get('/health')).toEqual({ ok: true, frame: 0 });
  expect((await plain.get('/tools')).game).toEqual({ name: 'Time Test', version: '1.0.0', protocol: 1 });
  expect(await plain.cmd('clock.pause')).toMatchObject({ accepted: false, error: "unknown command 'clock.pause'" });
  const s = await plain.get('/state');
  expect(s).not.toHaveProperty('clock');
  expect(s).not.toHaveProperty('input');
});

test('clock.step 5 runs exactly 5 simulation frames, completes on the fifth, then stays paused', async () => {
  const h = await start();
  h.frame();
  h.frame();
  const { commandId: pauseId } = await h.cmd('clock.pause');
  h.frame();
  expect(h.surface.completedCommandId).toBe(pauseId);
  const before = await h.get('/state');
  expect(before).toMatchObject({ clock: { paused: true }, simFrame: 2 });
  expect(h.frame()).toBe(0);

  const { commandId: stepId } = await h.cmd('clock.step', { frames: '5' });
  const { commandId: laterId } = await h.cmd('add');
  const grants: number[] = [];
  const completedAfterEach: number[] = [];
  for (let i = 0; i < 8; i++) {
    grants.push(h.frame());
    completedAfterEach.push(h.surface.completedCommandId);
  }
  expect(grants).toEqual([1, 1, 1, 1, 1, 0, 0, 0]);
  // The step completes on its fifth frame, not before; the command behind it waits for it.
  expect(completedAfterEach).toEqual([pauseId, pauseId, pauseId, pauseId, stepId, laterId, laterId, laterId]);
  const after = await h.get('/state');
  expect(after.simFrame - before.simFrame).toBe(5);
  expect(h.simulated()).toBe(7);
  expect(after.frame).toBe(before.frame + 9); // frame keeps growing while paused
  expect(after.clock).toEqual({ paused: true, stepFramesLeft: 0 });
});

test('a paused game answers every endpoint and applies other commands until resume simulates again', async () => {
  const h = await start();
  await h.cmd('clock.pause');
  h.frame();
  const { commandId } = await h.cmd('add');
  expect(h.frame()).toBe(0);
  expect(h.surface.completedCommandId).toBe(commandId);
  expect((await h.get('/health')).ok).toBe(true);
  expect((await h.get('/tools')).toolsets).toEqual([]);
  await h.cmd('clock.resume');
  expect(h.frame()).toBe(1);
  expect((await h.get('/state')).clock.paused).toBe(false);
});

test('a hold is leased by the game: it comes up on its own when the lease runs out', async () => {
  const h = await start();
  await h.cmd('input.hold', { input: 'jump', owner: 's1', leaseMs: '800' });
  h.frame();
  expect(h.surface.isHeld('jump')).toBe(true);
  const held = (await h.get('/state')).input.held;
  expect(held).toEqual([{ input: 'jump', owner: 's1', leaseMsLeft: expect.any(Number) }]);
  expect(held[0].leaseMsLeft).toBeGreaterThan(0);
  expect(held[0].leaseMsLeft).toBeLessThanOrEqual(800);
  await new Promise((r) => setTimeout(r, 900));
  // Nobody released it, and no tick ran: the lease alone ends it.
  expect(h.surface.isHeld('jump')).toBe(false);
  expect((await h.get('/state')).input.held).toEqual([]);
});

test("release and releaseAll touch only their owner's inputs", async () => {
  const h = await start();
  await h.cmd('input.hold', { input: 'left', owner: 'A', leaseMs: '60000' });
  await h.cmd('input.hold', { input: 'left', owner: 'B', leaseMs: '60000' });
  await h.cmd('input.hold', { input: 'right', owner: 'B', leaseMs: '60000' });
  await h.cmd('input.hold', { input: 'jump', owner: 'A', leaseMs: '60000' });
  h.frame();
  await h.cmd('input.releaseAll', { owner: 'A' });
  h.frame();
  expect((await h.get('/state')).input.held.map((x: any) => `${x.owner}:${x.input}`)).toEqual(['B:left', 'B:right']);
  expect(h.surface.isHeld('left')).toBe(true);
  expect(h.surface.isHeld('jump')).toBe(false);
  await h.cmd('input.release', { input: 'left', owner: 'B' });
  h.frame();
  expect(h.surface.isHeld('left')).toBe(false);
  expect(h.surface.held()).toEqual([{ input: 'right', owner: 'B', leaseMsLeft: expect.any(Number) }]);
});

test('reserved commands refuse bad arguments with the reason', async () => {
  const h = await start();
  expect(await h.cmd('input.hold', { input: 'fly', owner: 'A', leaseMs: '10' })).toEqual({
    accepted: false,
    error: "unknown input 'fly' (this game reads: left, right, jump)",
  });
  expect((await h.cmd('input.hold', { input: 'left', leaseMs: '10' })).error).toMatch(/missing argument 'owner'/);
  expect((await h.cmd('input.hold', { input: 'left', owner: ' ', leaseMs: '10' })).error).toMatch(
    /'owner' must not be empty/,
  );
  expect((await h.cmd('input.hold', { input: 'left', owner: 'A', leaseMs: '0' })).error).toMatch(
    /'leaseMs' must be > 0/,
  );
  expect((await h.cmd('input.releaseAll', {})).accepted).toBe(false);
  expect((await h.cmd('clock.step', { frames: '0' })).error).toMatch(/'frames' must be a whole number from 1 to 10000/);
  expect((await h.cmd('clock.step', { frames: '1.5' })).accepted).toBe(false);
  expect((await h.cmd('clock.step', { frames: '10001' })).accepted).toBe(false);
  const known = (await h.cmd('nope')).known;
  expect(known).toEqual([
    'add',
    'input.hold',
    'input.release',
    'input.releaseAll',
    'clock.pause',
    'clock.resume',
    'clock.step',
    'frames.stall',
    'close',
  ]);
});

test('the kit refuses a game command with a reserved name', () => {
  expect(() =>
    createGameSurface({
      port: 0,
      name: 'x',
      version: '1',
      snapshot: () => ({}),
      commands: { 'clock.stop': () => undefined },
    }),
  ).toThrow(/reserved/);
});

test('sessionEpoch appears in /health and /state once the game starts one', async () => {
  const h = await start();
  expect(await h.get('/health')).not.toHaveProperty('sessionEpoch');
  expect(h.surface.sessionEpoch).toBeNull();
  h.surface.newEpoch();
  expect((await h.get('/health')).sessionEpoch).toBe(1);
  expect((await h.get('/state')).sessionEpoch).toBe(1);
});

test('sessionEpoch only grows', async () => {
  const h = await start();
  expect(h.surface.newEpoch()).toBe(1);
  expect(h.surface.newEpoch()).toBe(2);
  expect((await h.get('/health')).sessionEpoch).toBe(2);
  expect((await h.get('/state')).sessionEpoch).toBe(2);
});

test('a game may start at sessionEpoch 0', async () => {
  const fromZero = await start({ sessionEpoch: 0 });
  expect((await fromZero.get('/health')).sessionEpoch).toBe(0);
});

test('the surface counts simFrame only for a game that does not count its own', async () => {
  const own = await start({ snapshot: () => ({ simFrame: 42 }) });
  own.frame();
  expect((await own.get('/state')).simFrame).toBe(42);
  const filled = await start();
  filled.frame();
  filled.frame();
  expect((await filled.get('/state')).simFrame).toBe(2);
});
