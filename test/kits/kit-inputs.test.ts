/**
 * Pointer, touch, analog axes and text on the kits' example games, driven through the reserved
 * commands over real HTTP (input.pointer, input.touch, input.axis, input.text), each checked
 * on both sides: what /state's `input` reports and what the game itself read through the
 * engine's own input path (a pygame event, a LÖVE callback, a Godot input event, the C# kit's
 * input state). A capability an example does not declare is skipped by name; a missing runtime
 * skips the kit here and fails under CI=true. Run one kit with -t, e.g. -t 'Python (pygame)'.
 */
import { freePort } from '../helpers/ports.js';
import { Reaper, removeDir, tempHome } from '../helpers/procs.js';
import { KIT_EXAMPLES, type Cmd, type KitExample, type Running } from './examples.js';
import { applied, command, getJson, killWithHome, untilState } from './kit-game.js';

const CI = process.env.CI === 'true';
const OWNER = 'agent-a';
const OTHER = 'agent-b';

/** How an example reads each input it declares, as its /state shows it. */
interface InputPlay {
  /** Brings the game to where it takes input (a running round). */
  start: Cmd[];
  /** `read` is what the kit handed the game; `polled`, what the engine's own joystick query answers. */
  axis?: { name: string; min: number; max: number; read: (s: any) => number; polled?: (s: any) => number };
  /** The last left press the game saw, [x, y]; `at` is a spot on its field that presses nothing. */
  pointer?: { at: [number, number]; read: (s: any) => [number, number] | null };
  /** What the engine's own mouse queries answered, [x, y, left down] (LÖVE's love.mouse, pygame.mouse). */
  polled?: (s: any) => [number, number, boolean];
  /** What a wheel turn changes in the game (a notch up, dy -100, adds to it). Absent: the game ignores the wheel. */
  wheel?: (s: any) => number;
  /** The last touch-down the game saw, [x, y]; `polled`, the fingers the engine's own touch queries list, [[x, y], ...]. */
  touch?: { read: (s: any) => [number, number] | null; polled?: (s: any) => [number, number][] };
  /** What the engine's own joystick query answers for the game's first two inputs as buttons. */
  padButtons?: { inputs: [string, string]; polled: (s: any) => [boolean, boolean] };
  /** The text the game took. */
  text?: { read: (s: any) => string };
}

const PLAY: Record<string, InputPlay> = {
  Python: {
    start: [['reset']],
    axis: { name: 'walk', min: -1, max: 1, read: (s) => s.game.walk },
  },
  LÖVE: {
    start: [['reset']],
    axis: { name: 'walk', min: -1, max: 1, read: (s) => s.game.walk, polled: (s) => s.game.pad?.[0] },
    pointer: { at: [400, 300], read: (s) => s.game.lastClick?.slice(0, 2) ?? null },
    polled: (s) => s.game.mouse,
    touch: { read: (s) => s.game.lastTap, polled: (s) => s.game.fingers },
    padButtons: { inputs: ['left', 'right'], polled: (s) => s.game.pad && [s.game.pad[1], s.game.pad[2]] },
    text: { read: (s) => s.game.name },
  },
  'C# (Mono)': {
    start: [['reset']],
    axis: { name: 'walk', min: -1, max: 1, read: (s) => s.game.walk },
    pointer: { at: [400, 300], read: (s) => s.game.lastClick },
    touch: { read: (s) => s.game.lastTap },
    text: { read: (s) => s.game.name },
  },
  'Godot 3': {
    start: [['reset']],
    axis: { name: 'walk', min: -1, max: 1, read: (s) => s.game.walk, polled: (s) => s.game.joyAxis },
    pointer: { at: [600, 200], read: (s) => s.game.lastClick },
    polled: (s) => s.game.mouse,
    touch: { read: (s) => s.game.lastTap },
    text: { read: (s) => s.game.name },
  },
  'Python (pygame)': {
    start: [['start']],
    axis: { name: 'steer', min: -1, max: 1, read: (s) => s.game.steer, polled: (s) => s.game.pad?.[0] },
    pointer: { at: [100, 150], read: (s) => s.game.lastClick?.slice(0, 2) ?? null },
    polled: (s) => s.game.mouse,
    wheel: (s) => s.game.volume,
    touch: { read: (s) => s.game.lastTap, polled: (s) => s.game.fingers },
    padButtons: { inputs: ['left', 'right'], polled: (s) => s.game.pad && [s.game.pad[1], s.game.pad[2]] },
    text: { read: (s) => s.game.name },
  },
};

const EXAMPLES = KIT_EXAMPLES.filter((e) => PLAY[e.kit]);

describe.each(EXAMPLES.map((e) => [`${e.kit} kit (${e.example})`, e] as const))('%s', (_name, kit) => {
  const why = kit.missing();
  if (why) {
    if (CI) test(`its runtime is installed (CI=true): ${why}`, () => expect(why).toBeNull());
    else test.skip(`all input checks: ${why}`, () => undefined);
    return;
  }
  describeInputs(kit, PLAY[kit.kit]!);
});

function describeInputs(kit: KitExample, play: InputPlay): void {
  const reaper = new Reaper();
  const home = tempHome('gb-kitinputs-');
  let game: Running;
  let port: number;
  const testIf = (declared: unknown, name: string, fn: () => Promise<void>) =>
    declared ? test(name, fn) : test.skip(`${name} (not declared by ${kit.kit})`, () => undefined);
  const state = () => getJson(port, '/state');
  const refused = async (cmd: string, args: Record<string, string | number>, error: RegExp) => {
    const r = await command(port, cmd, { owner: OWNER, ...args });
    expect(r).toMatchObject({ accepted: false });
    expect(r.error).toMatch(error);
  };

  beforeAll(async () => {
    port = await freePort();
    game = await kit.start(reaper, port, home);
    for (const c of play.start) await applied(port, ...c);
  }, kit.readyMs + 30000);

  afterAll(async () => {
    await game?.stop();
    await reaper.reap();
    killWithHome(home);
    removeDir(home);
  });

  test('the declared capabilities and their manifest entries match what the game reads', async () => {
    const caps = (await getJson(port, '/health')).capabilities;
    const game = (await getJson(port, '/tools')).game;
    const s = await state();
    expect(caps.includes('axis')).toBe(!!play.axis);
    expect(caps.includes('pointer')).toBe(!!play.pointer);
    expect(caps.includes('touch')).toBe(!!play.touch);
    expect(caps.includes('text')).toBe(!!play.text);
    if (play.axis) {
      const { name, min, max } = play.axis;
      expect(game.axes).toEqual([{ name, min, max }]);
      expect(s.input.axes).toEqual({ [name]: 0 });
    } else expect(game.axes).toBeUndefined();
    expect(game.pointer).toBe(play.pointer ? true : undefined);
    expect(game.touch).toBe(play.touch ? true : undefined);
    expect(game.text).toBe(play.text ? true : undefined);
  });

  describe('axis', () => {
    const a = play.axis;
    const at = (value: number) => (s: any) =>
      s.input.axes[a!.name] === value && a!.read(s) === value && (!a!.polled || a!.polled(s) === value);

    testIf(a, 'an axis is read by the game at the value sent and rests at 0 once released', async () => {
      await applied(port, 'input.axis', { input: a!.name, value: 0.5, owner: OWNER, leaseMs: 60000 });
      const held = await untilState(port, 'the game reads 0.5', at(0.5));
      expect(held.input.held).toContainEqual(expect.objectContaining({ input: a!.name, owner: OWNER }));
      await applied(port, 'input.release', { input: a!.name, owner: OWNER });
      await untilState(port, 'the axis back at 0', at(0));
    });

    testIf(a, 'an axis rests at 0 when its lease ends, enforced by the game', async () => {
      await applied(port, 'input.axis', { input: a!.name, value: -0.25, owner: OWNER, leaseMs: 400 });
      await untilState(port, 'the game reads -0.25', at(-0.25));
      await untilState(port, 'the lease over: back at 0', at(0), 5000);
    });

    testIf(a, "releaseAll rests that owner's axis and leaves another owner's hold alone", async () => {
      await applied(port, 'input.axis', { input: a!.name, value: 0.75, owner: OWNER, leaseMs: 60000 });
      await applied(port, 'input.releaseAll', { owner: OTHER });
      await untilState(port, 'still 0.75 after another owner let go', at(0.75));
      await applied(port, 'input.releaseAll', { owner: OWNER });
      await untilState(port, 'back at 0', at(0));
    });

    testIf(a, 'an out-of-range axis value is refused naming the range before anything is applied', async () => {
      const range = `${a!.min}..${a!.max}`;
      await refused(
        'input.axis',
        { input: a!.name, value: a!.max + 1, leaseMs: 60000 },
        new RegExp(range.replace(/\./g, '\\.')),
      );
      await refused(
        'input.axis',
        { input: 'no-such-axis', value: 0, leaseMs: 60000 },
        new RegExp(`unknown axis.*${a!.name}`),
      );
      await refused('input.axis', { input: a!.name, value: 0.5, leaseMs: 0 }, /leaseMs/);
      await applied(port, 'clock.step', { frames: 1 });
      await applied(port, 'clock.resume');
      const s = await state();
      expect(s.input.axes[a!.name]).toBe(0);
      expect(a!.read(s)).toBe(0);
    });
  });

  describe('joystick buttons', () => {
    const pb = play.padButtons;

    testIf(pb, "the engine's own joystick query reports held inputs as the bridge pad's buttons", async () => {
      const [first, second] = pb!.inputs;
      const buttons = (want: string) => (st: any) => String(pb!.polled(st)) === want;
      await applied(port, 'input.hold', { input: second, owner: OWNER, leaseMs: 60000 });
      await untilState(port, 'the second button down', buttons('false,true'));
      await applied(port, 'input.hold', { input: first, owner: OWNER, leaseMs: 60000 });
      await untilState(port, 'both buttons down', buttons('true,true'));
      await applied(port, 'input.releaseAll', { owner: OWNER });
      await untilState(port, 'both buttons up', buttons('false,false'));
    });
  });

  describe('pointer', () => {
    const p = play.pointer;

    // before any other press, so the press the game reads is this test's
    testIf(p, 'the game sees a press where the pointer is', async () => {
      const [x, y] = p!.at;
      await applied(port, 'input.pointer', { x, y, buttons: 0, owner: OWNER });
      await applied(port, 'input.pointer', { x, y, buttons: 1, owner: OWNER });
      await untilState(port, 'the game saw the press', (st) => String(p!.read(st)) === String([x, y]));
      await applied(port, 'input.pointer', { x, y, buttons: 0, owner: OWNER });
    });

    testIf(p, 'pointer position and buttons arrive as sent', async () => {
      const [x, y] = p!.at;
      await applied(port, 'input.pointer', { x, y, buttons: 0, owner: OWNER });
      const s = await applied(port, 'input.pointer', { x, y, buttons: 1, owner: OWNER });
      expect(s.input.pointer).toEqual({ x, y, buttons: 1 });
      const up = await applied(port, 'input.pointer', { x: x + 5, y, buttons: 0, owner: OWNER });
      expect(up.input.pointer).toEqual({ x: x + 5, y, buttons: 0 });
    });

    testIf(play.polled, "the engine's own mouse queries report the agent's pointer and button", async () => {
      const [x, y] = p!.at;
      await applied(port, 'input.pointer', { x: x + 7, y: y + 3, buttons: 1, owner: OWNER });
      await untilState(
        port,
        'the game polled the press',
        (st) => String(play.polled!(st)) === `${x + 7},${y + 3},true`,
      );
      await applied(port, 'input.pointer', { x, y, buttons: 0, owner: OWNER });
      await untilState(port, 'the game polled the lift', (st) => String(play.polled!(st)) === `${x},${y},false`);
    });

    testIf(p, 'input.click reaches the game as a press where it lands, and the button is up after', async () => {
      const [x, y] = p!.at;
      await applied(port, 'input.pointer', { x, y, buttons: 0, owner: OWNER });
      await applied(port, 'input.click', { x: x + 4, y: y + 2, button: 1, count: 1, owner: OWNER });
      await untilState(port, 'the game saw the click', (st) => String(p!.read(st)) === String([x + 4, y + 2]));
      await untilState(port, 'the button lifted', (st) => st.input.pointer.buttons === 0);
    });

    testIf(p, "releaseAll lifts that owner's pointer buttons", async () => {
      const [x, y] = p!.at;
      await applied(port, 'input.pointer', { x, y, buttons: 2, owner: OWNER });
      await applied(port, 'input.releaseAll', { owner: OTHER });
      expect((await state()).input.pointer.buttons).toBe(2);
      const s = await applied(port, 'input.releaseAll', { owner: OWNER });
      expect(s.input.pointer).toEqual({ x, y, buttons: 0 });
    });

    testIf(p, "two owners' buttons are one mouse, down while either owner holds a button", async () => {
      const [x, y] = p!.at;
      await applied(port, 'input.pointer', { x, y, buttons: 1, owner: OWNER });
      let s = await applied(port, 'input.pointer', { x: x + 2, y, buttons: 0, owner: OTHER });
      expect(s.input.pointer).toEqual({ x: x + 2, y, buttons: 1 });
      s = await applied(port, 'input.pointer', { x: x + 2, y, buttons: 2, owner: OTHER });
      expect(s.input.pointer.buttons).toBe(3);
      s = await applied(port, 'input.releaseAll', { owner: OTHER });
      expect(s.input.pointer.buttons).toBe(1);
      s = await applied(port, 'input.pointer', { x, y, buttons: 0, owner: OWNER });
      expect(s.input.pointer).toEqual({ x, y, buttons: 0 });
    });

    testIf(p, 'out-of-range pointer and wheel values are refused naming the range before anything moves', async () => {
      const before = (await state()).input.pointer;
      await refused('input.pointer', { x: 10, y: 10, buttons: 8 }, /buttons.*0 to 7/);
      await refused('input.pointer', { x: -1, y: 10, buttons: 0 }, /'x'.*from 0/);
      await refused('input.wheel', { dx: 0, dy: 20000 }, /dy.*-10000 to 10000/);
      await applied(port, 'clock.step', { frames: 1 });
      await applied(port, 'clock.resume');
      expect((await state()).input.pointer).toEqual(before);
    });

    testIf(p, 'a wheel event is accepted and applied on the tick', async () => {
      const s = await applied(port, 'input.wheel', { dx: 0, dy: -100, owner: OWNER });
      expect(s.commandResults.find((r: any) => r.id === s.sentId)).toEqual({ id: s.sentId, ok: true });
    });

    testIf(play.wheel, 'a wheel notch down and one up reach the game', async () => {
      // An engine event posted on one frame is read on the next: let earlier ones land first.
      const f0 = (await state()).frame;
      const before = play.wheel!(await untilState(port, 'two frames on', (st) => st.frame >= f0 + 2));
      await applied(port, 'input.wheel', { dx: 0, dy: 100, owner: OWNER });
      const down = await untilState(port, 'the game saw the notch down', (st) => play.wheel!(st) < before);
      await applied(port, 'input.wheel', { dx: 0, dy: -100, owner: OWNER });
      const up = await untilState(port, 'the game saw the notch up', (st) => play.wheel!(st) > play.wheel!(down));
      expect(play.wheel!(up)).toBeCloseTo(before, 5);
    });
  });

  describe('touch', () => {
    const t = play.touch;

    // before any other touch, so the tap the game reads is this test's
    testIf(t, 'the game sees the tap of a second touch point', async () => {
      await applied(port, 'input.touch', { id: 0, x: 120, y: 150, phase: 'down', owner: OWNER });
      await applied(port, 'input.touch', { id: 1, x: 200, y: 160, phase: 'down', owner: OWNER });
      await untilState(port, 'the game saw the second tap', (st) => String(t!.read(st)) === '200,160');
      await applied(port, 'input.touch', { id: 0, x: 120, y: 150, phase: 'up', owner: OWNER });
      await applied(port, 'input.touch', { id: 1, x: 200, y: 160, phase: 'up', owner: OWNER });
    });

    testIf(t?.polled, "the engine's own touch queries list the fingers down, where they are", async () => {
      const fingers = (want: string) => (st: any) => JSON.stringify(t!.polled!(st) ?? []) === want;
      await applied(port, 'input.touch', { id: 5, x: 30, y: 40, phase: 'down', owner: OWNER });
      await applied(port, 'input.touch', { id: 6, x: 70, y: 80, phase: 'down', owner: OWNER });
      await untilState(port, 'the game polled both fingers', fingers('[[30,40],[70,80]]'));
      await applied(port, 'input.touch', { id: 6, x: 75, y: 85, phase: 'move', owner: OWNER });
      await untilState(port, 'the game polled the move', fingers('[[30,40],[75,85]]'));
      await applied(port, 'input.touch', { id: 5, x: 30, y: 40, phase: 'up', owner: OWNER });
      await applied(port, 'input.touch', { id: 6, x: 75, y: 85, phase: 'up', owner: OWNER });
      await untilState(port, 'the game polled no finger', fingers('[]'));
    });

    testIf(t, 'two touch points go down together, move and lift', async () => {
      await applied(port, 'input.touch', { id: 0, x: 120, y: 150, phase: 'down', owner: OWNER });
      let s = await applied(port, 'input.touch', { id: 1, x: 200, y: 160, phase: 'down', owner: OWNER });
      expect(s.input.touches).toEqual([
        { id: 0, x: 120, y: 150 },
        { id: 1, x: 200, y: 160 },
      ]);
      s = await applied(port, 'input.touch', { id: 1, x: 240, y: 170, phase: 'move', owner: OWNER });
      expect(s.input.touches[1]).toEqual({ id: 1, x: 240, y: 170 });
      await applied(port, 'input.touch', { id: 0, x: 120, y: 150, phase: 'up', owner: OWNER });
      s = await applied(port, 'input.touch', { id: 1, x: 240, y: 170, phase: 'up', owner: OWNER });
      expect(s.input.touches).toEqual([]);
    });

    testIf(t, "releaseAll lifts that owner's touches only", async () => {
      await applied(port, 'input.touch', { id: 2, x: 50, y: 50, phase: 'down', owner: OWNER });
      await applied(port, 'input.touch', { id: 3, x: 60, y: 60, phase: 'down', owner: OTHER });
      const s = await applied(port, 'input.releaseAll', { owner: OWNER });
      expect(s.input.touches).toEqual([{ id: 3, x: 60, y: 60 }]);
      expect((await applied(port, 'input.releaseAll', { owner: OTHER })).input.touches).toEqual([]);
    });

    testIf(t, 'an out-of-range touch is refused naming the range', async () => {
      await refused('input.touch', { id: 10, x: 5, y: 5, phase: 'down' }, /'id'.*0 to 9/);
      await refused('input.touch', { id: 0, x: 5, y: 5, phase: 'hover' }, /down, move or up/);
    });

    testIf(t, 'a move of a lifted touch point fails', async () => {
      const s = await applied(port, 'input.touch', { id: 4, x: 5, y: 5, phase: 'move', owner: OWNER });
      expect(s.commandResults.find((r: any) => r.id === s.sentId)).toMatchObject({
        ok: false,
        error: /touch 4 is not down/,
      });
      expect(s.input.touches).toEqual([]);
    });
  });

  describe('text', () => {
    const tx = play.text;

    testIf(tx, 'typed text arrives in the game', async () => {
      await applied(port, 'input.text', { text: 'ANA', owner: OWNER });
      await untilState(port, 'the game took the text', (s) => tx!.read(s).includes('ANA'));
    });

    testIf(tx, 'text over 1000 characters is refused before anything is typed', async () => {
      const before = tx!.read(await state());
      await refused('input.text', { text: 'x'.repeat(1001) }, /1 to 1000 characters/);
      await refused('input.text', { text: '' }, /1 to 1000 characters/);
      await applied(port, 'clock.step', { frames: 2 });
      await applied(port, 'clock.resume');
      expect(tx!.read(await state())).toBe(before);
    });
  });
}
