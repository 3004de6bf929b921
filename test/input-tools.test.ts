/**
 * Every input a player has, on the Node kit, through the real bridge (the CLI in --no-daemon
 * mode, the official SDK client) and Crate Stack: the pointer clicks and drags the dropper, the
 * analog stick `steer` moves it, typed text is the high-score name, input_sequence plays them at
 * frame offsets; out-of-range values are refused with nothing sent; a game without the
 * capabilities says so (saved-tests.test.ts replays a recorded session of them).
 */
import { join } from 'node:path';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { healthOk, Reaper, removeDir, ROOT, startExampleGame, tempHome, waitFor } from './helpers/procs.js';

const reaper = new Reaper();
const handles: McpHandle[] = [];
let home: string;
let crate: number, oldCrate: number, axisOnly: number, clicker: number, starter: number;

beforeAll(async () => {
  home = tempHome('gb-inputs-');
  [crate, oldCrate, axisOnly, clicker, starter] = await freeRange(5);
  // A game that reads one analog axis and no named inputs.
  reaper.spawn(process.execPath, [join(ROOT, 'test', 'fixtures', 'held-game.mjs'), String(axisOnly), 'axis'], {
    env: { ...process.env, GAME_BRIDGE_HOME: home },
  });
  // A running game that reads the pointer and lists the frames its presses and lifts came on.
  reaper.spawn(process.execPath, [join(ROOT, 'test', 'fixtures', 'held-game.mjs'), String(clicker), 'pointer'], {
    env: { ...process.env, GAME_BRIDGE_HOME: home },
  });
  // A running game whose `again` input starts a new run two frames after it is pressed.
  reaper.spawn(process.execPath, [join(ROOT, 'test', 'fixtures', 'held-game.mjs'), String(starter)], {
    env: { ...process.env, GAME_BRIDGE_HOME: home },
  });
  await Promise.all([
    startExampleGame(reaper, crate, ['--screenshot'], { GAME_BRIDGE_HOME: home }),
    startExampleGame(reaper, oldCrate, ['--no-time'], { GAME_BRIDGE_HOME: home }),
    waitFor('the axis-only game', () => healthOk(axisOnly), 30000),
    waitFor('the clicker game', () => healthOk(clicker), 30000),
    waitFor('the starter game', () => healthOk(starter), 30000),
  ]);
}, 60000);

afterAll(async () => {
  await Promise.all(handles.map((h) => h.close()));
  await reaper.reap();
  removeDir(home);
});

async function client(): Promise<McpHandle> {
  const h = await connect({ args: ['--no-daemon', '--no-scan'], env: { GAME_BRIDGE_HOME: home } });
  handles.push(h);
  return h;
}

async function ok(h: McpHandle, name: string, args: Record<string, unknown> = {}) {
  const r = await gameCall(h, crate, name, args);
  if (r.isError) throw new Error(r.text);
  return r.json;
}

const state = async (h: McpHandle) => (await ok(h, 'get_state')).state;

/** A fresh paused round on the same seed. */
async function round(h: McpHandle): Promise<void> {
  await ok(h, 'set_seed', { seed: 'inputs' });
  await ok(h, 'restart');
  await ok(h, 'bridge.pause');
}

test('the game declares pointer, axis and text, with its axis and range, in /health and the manifest', async () => {
  const h = await client();
  expect((await ok(h, 'health')).capabilities).toEqual(expect.arrayContaining(['pointer', 'axis', 'text']));
  const s = await state(h);
  expect(s.input).toMatchObject({ axes: { steer: 0 }, pointer: { x: 0, y: 0, buttons: 0 } });
  const d = await call(h, 'describe_toolset', { port: crate, toolset: 'bridge' });
  expect(d.json.tools.map((t: any) => t.name)).toEqual(
    expect.arrayContaining(['pointer', 'wheel', 'tap', 'swipe', 'pinch', 'set_axis', 'type', 'input_sequence']),
  );
});

test('a pointer click drops a crate under the pointer: 80 screenshot pixels is world x 50', async () => {
  const h = await client();
  await round(h);
  const r = await ok(h, 'pointer', { action: 'click', x: 120, y: 40 });
  expect(r).toMatchObject({ via: 'game', grid: { width: 160, height: 256 }, frames: 1, applied: true });
  const s = await state(h);
  expect(s.game.crates.length + (s.events as unknown[]).length).toBeGreaterThan(0);
  await ok(h, 'step', { frames: 10 });
  const crates = (await state(h)).game.crates as { x: number }[];
  expect(crates.at(-1)!.x).toBeCloseTo(75, 0); // 120 px / 1.6, within the crate's half width of the wall
  expect((await state(h)).input.pointer).toEqual({ x: 120, y: 40, buttons: 0 });
});

describe('a click on a running game', () => {
  /**
   * The presses and lifts the game saw once the last click has lifted, and the frame the game
   * completed the command on. The answer's own frame is when the bridge's poll read the state,
   * a frame later on a loaded machine, so the game's record is what is compared.
   */
  async function seenAfter(h: McpHandle, n: number, commandId: number): Promise<[[number, string][], number]> {
    let seen: [number, string][] = [];
    let completedOn: [number, number][] = [];
    await waitFor(
      'the click to lift',
      async () => {
        const r = await gameCall(h, clicker, 'get_state');
        ({ seen, completedOn } = r.json.state.game);
        return r.json.state.input.pointer.buttons === 0 && seen.at(-1)?.[1] === 'pointerup';
      },
      10000,
    );
    return [seen.slice(-n), completedOn.find(([id]) => id === commandId)?.[1] ?? -1];
  }

  test('completes on the frame that presses, and the game sees the lift on the next frame', async () => {
    const h = await client();
    const r = await gameCall(h, clicker, 'pointer', { action: 'click', x: 30, y: 40 });
    expect(r.json).toMatchObject({ via: 'game', frames: 1, applied: true });
    const [seen, completed] = await seenAfter(h, 2, r.json.commandId);
    expect(seen).toEqual([
      [completed, 'pointerdown'],
      [completed + 1, 'pointerup'],
    ]);
    expect(r.json.frame).toBeGreaterThanOrEqual(completed);
  });

  test('a double click presses and lifts on four frames in a row and completes on its second press', async () => {
    const h = await client();
    const r = await gameCall(h, clicker, 'pointer', { action: 'click', x: 30, y: 40, count: 2 });
    expect(r.json).toMatchObject({ via: 'game', frames: 3, applied: true });
    const [seen, f] = await seenAfter(h, 4, r.json.commandId);
    expect(seen).toEqual([
      [f - 2, 'pointerdown'],
      [f - 1, 'pointerup'],
      [f, 'pointerdown'],
      [f + 1, 'pointerup'],
    ]);
    expect(r.json.frame).toBeGreaterThanOrEqual(f);
  });
});

describe('a drag of 10 frames on a paused game', () => {
  let r: any, s: any, s0: number;
  beforeAll(async () => {
    const h = await client();
    await round(h);
    s0 = (await state(h)).simFrame as number;
    r = await ok(h, 'pointer', { action: 'drag', path: [[16, 100]], x: 144, y: 100, frames: 10 });
    s = await state(h);
  });

  test('arrives at its end point on its last frame', () => {
    expect(r).toMatchObject({ frames: 11, applied: true });
    expect(s.simFrame).toBe(s0 + 11);
    expect(s.input.pointer).toEqual({ x: 144, y: 100, buttons: 0 });
  });

  test('moves the dropper to its end point', () => {
    expect(s.game.dropperX).toBe(90); // 144 / 1.6
  });
});

describe('an analog value held for 4 frames', () => {
  let r: any, s: any, x0: number;
  beforeAll(async () => {
    const h = await client();
    await round(h);
    x0 = (await state(h)).game.dropperX as number;
    r = await ok(h, 'set_axis', { input: 'steer', value: -0.5, frames: 4 });
    s = await state(h);
  });

  test('is read by the game as given', () => {
    expect(r).toMatchObject({ input: 'steer', value: -0.5, frames: 4 });
  });

  test('moves the dropper by that much a frame', () => {
    expect(s.game.dropperX).toBe(x0 - 4); // 0.5 × 2 units a frame × 4 frames
  });

  test('rests at 0 after its frames', () => {
    expect(s.input.axes.steer).toBe(0);
  });
});

test('an axis held with ms rests at 0 when its lease ends, by the game itself', async () => {
  const h = await client();
  await ok(h, 'set_axis', { input: 'steer', value: 0.75, ms: 400 });
  expect((await state(h)).input.axes.steer).toBe(0.75);
  await waitFor('the lease to end', async () => (await state(h)).input.axes.steer === 0, 5000);
});

test("two sessions' axes do not interfere: one releasing or leaving leaves the other's value", async () => {
  const [a, b] = [await client(), await client()];
  await ok(a, 'set_axis', { input: 'steer', value: 0.5, ms: 60000 });
  await ok(b, 'set_axis', { input: 'steer', value: -1, ms: 60000 });
  expect((await state(a)).input.axes.steer).toBe(-1);
  await ok(b, 'release', { input: 'steer' });
  expect((await state(a)).input.axes.steer).toBe(0.5);
  await ok(b, 'set_axis', { input: 'steer', value: -1, ms: 60000 });
  await b.close();
  await waitFor('b to be gone', async () => (await state(a)).input.axes.steer === 0.5, 5000);
  await a.close();
  const c = await client();
  await waitFor('a to be gone', async () => (await state(c)).input.axes.steer === 0, 5000);
});

describe('on a game that reads axes and no named inputs', () => {
  let on: (name: string, args: Record<string, unknown>) => ReturnType<typeof gameCall>;
  const steer = async () => (await on('get_state', {})).json.state.input.axes.steer;
  beforeAll(async () => {
    const h = await client();
    on = (name, args) => gameCall(h, axisOnly, name, args);
  });

  test('release rests an axis', async () => {
    expect((await on('set_axis', { input: 'steer', value: 0.5, ms: 60000 })).isError).toBeFalsy();
    expect((await on('get_state', {})).json.state.game.steer).toBe(0.5);
    const r = await on('release', { input: 'steer' });
    expect(r.isError).toBeFalsy();
    expect(await steer()).toBe(0);
  });

  test('release refuses a named input without sending a command', async () => {
    const before = (await on('get_state', {})).json.state.completedCommandId;
    const key = await on('release', { input: 'left' });
    expect(key.text).toMatch(/^CapabilityMissing: .*held inputs \(capability "input"/);
    expect((await on('set_axis', { input: 'steer', value: -1, ms: 60000 })).isError).toBeFalsy();
    expect((await on('release', {})).isError).toBeFalsy();
    expect(await steer()).toBe(0);
    expect((await on('get_state', {})).json.state.completedCommandId).toBe(before + 2);
  });
});

test('typed text arrives in the high-score name', async () => {
  const h = await client();
  await round(h);
  const r = await ok(h, 'type', { text: 'Ada 1!' });
  expect(r).toMatchObject({ typed: 6, applied: true, game: { playerName: expect.stringContaining('Ada 1') } });
});

describe('out-of-range values', () => {
  let before: number, after: number;
  let axis: Awaited<ReturnType<typeof gameCall>>, off: typeof axis, seq: typeof axis;
  beforeAll(async () => {
    const h = await client();
    before = (await state(h)).completedCommandId as number;
    axis = await gameCall(h, crate, 'set_axis', { input: 'steer', value: 2, frames: 1 });
    off = await gameCall(h, crate, 'pointer', { action: 'click', x: 400, y: 10 });
    seq = await gameCall(h, crate, 'input_sequence', {
      steps: [
        { frame: 0, tool: 'type', args: { text: 'x' } },
        { frame: 5, tool: 'set_axis', args: { input: 'throttle', value: 1, frames: 2 } },
      ],
    });
    after = (await state(h)).completedCommandId as number;
  });

  test('are refused naming the range', () => {
    expect(axis.text).toMatch(/^BridgeUsageError: .*axis 'steer' takes -1 to 1, got 2: nothing was sent/);
    expect(off.text).toMatch(/^BridgeUsageError: .*400,10 is off the screen: x takes 0 to 159 and y 0 to 255/);
    expect(seq.text).toMatch(
      /^BridgeUsageError: .*steps\[1\] \(set_axis\): 'throttle' is not an axis this game declares \(steer -1 to 1\)/,
    );
  });

  test('never reach the game', () => {
    expect(after).toBe(before);
  });
});

test('a game without the capabilities answers CapabilityMissing for pointer, set_axis and type', async () => {
  const h = await client();
  for (const [name, args] of [
    ['pointer', { x: 1, y: 1 }],
    ['set_axis', { input: 'steer', value: 1, frames: 1 }],
    ['type', { text: 'a' }],
    ['tap', { x: 1, y: 1 }],
  ] as const) {
    const r = await gameCall(h, oldCrate, name, args);
    expect(r.text).toMatch(/^CapabilityMissing: /);
  }
});

describe('an input that starts a new run while it is played', () => {
  const epoch = async (h: McpHandle, port: number) =>
    (await gameCall(h, port, 'get_state', { path: 'sessionEpoch' })).json.value as number;

  test('a press of a Start key is answered, not interrupted by the run it started', async () => {
    const h = await client();
    const before = await epoch(h, starter);
    const r = await gameCall(h, starter, 'press', { input: 'again', frames: 6 });
    expect(r.isError ? r.text : 'answered').toBe('answered');
    expect(await epoch(h, starter)).toBe(before + 1);
  });

  test('a drag from a Play button is answered, not interrupted by the run it started', async () => {
    const h = await client();
    const before = await epoch(h, clicker);
    const r = await gameCall(h, clicker, 'pointer', { action: 'drag', path: [[2, 2]], x: 60, y: 60, frames: 8 });
    expect(r.isError ? r.text : 'answered').toBe('answered');
    expect(await epoch(h, clicker)).toBe(before + 1);
  });
});

const SEQUENCE = [
  { frame: 0, tool: 'set_axis', args: { input: 'steer', value: 1, frames: 30 } },
  { frame: 10, tool: 'type', args: { text: 'Bo' } },
  { frame: 40, tool: 'pointer', args: { action: 'click', x: 24, y: 40 } },
  { frame: 50, tool: 'press', args: { input: 'right', frames: 10 } },
  { frame: 70, tool: 'pointer', args: { action: 'drag', path: [[20, 30]], x: 152, y: 30, frames: 20 } },
  { frame: 100, tool: 'pointer', args: { action: 'click', x: 88, y: 40 } },
  { frame: 119, tool: 'set_axis', args: { input: 'steer', value: -1, frames: 1 } },
];

describe('an input_sequence of 120 frames on a paused game, played twice', () => {
  const answers: any[] = [];
  const frames: number[] = [];
  const games: any[] = [];
  beforeAll(async () => {
    const h = await client();
    for (let i = 0; i < 2; i++) {
      await round(h);
      const s0 = (await state(h)).simFrame as number;
      answers.push(await ok(h, 'input_sequence', { steps: SEQUENCE }));
      const s = await state(h);
      frames.push(s.simFrame - s0);
      games.push(s.game);
    }
  });

  test('plays each input at its frame', () => {
    for (const r of answers) expect(r).toMatchObject({ steps: SEQUENCE.length, frames: 120, applied: true });
    expect(frames).toEqual([120, 120]);
    const { received: _a, ...one } = games[0];
    expect(one.playerName).toContain('Bo');
    expect(one.crates.length).toBe(3);
    expect(one.over).toBeNull();
  });

  test('gives the same state both times', () => {
    const { received: _a, ...one } = games[0];
    const { received: _b, ...two } = games[1];
    expect(two).toEqual(one);
  });
});
