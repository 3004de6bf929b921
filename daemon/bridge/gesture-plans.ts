/**
 * What each input tool of pointer.ts plans (gestures.ts plays it): its arguments as zod, the
 * checks that refuse a value before anything is sent, and its moves at frame offsets. A drag,
 * a swipe and a pinch press at their first points, move once a frame along their paths, and
 * lift on the frame after the last move. input_sequence finds each tool's plan in STEP_TOOLS.
 */
import { usageError } from '../../shared/errors.js';
import type { ToolContext } from '../tool-framework/context.js';
import { z } from '../tool-framework/define.js';
import { number, whole } from './args.js';
import { along, checkAxis, checkKey, checkPoint, pressPlan, type Target, type Timed } from './gestures.js';
import type { Need } from './needs.js';
import { HELD_CAPABILITIES } from '../../shared/capabilities.js';

const point = () => z.tuple([number(), number()]);
const gestureFrames = (what: string) => whole(1, 600).default(10).describe(`${what} (1-600, default 10).`);

export const POINTER = z.object({
  action: z
    .enum(['move', 'down', 'up', 'click', 'drag'])
    .default('click')
    .describe('move the pointer, press or lift a button, click (count times), or drag along `path` (default click).'),
  x: number().optional().describe("x in the screenshot's pixels (drag: the path's last point)."),
  y: number().optional().describe("y in the screenshot's pixels."),
  button: z.enum(['left', 'right', 'middle']).default('left').describe('Which button (default left).'),
  count: whole(1, 3).default(1).describe('Clicks in a row: 2 is a double click (default 1).'),
  path: z
    .array(point())
    .min(1)
    .max(100)
    .optional()
    .describe('drag: the points [x, y] it passes through, from where the button goes down; x, y (if given) end it.'),
  frames: gestureFrames('drag: the frames the move takes; the button lifts on the frame after'),
});

type PointerArgs = z.output<typeof POINTER>;

export function pointerPlan(ctx: ToolContext, t: Target, a: PointerArgs, at: number): Timed[] {
  const xy = (): [number, number] => {
    if (a.x !== undefined && a.y !== undefined) return [a.x, a.y];
    const last = ctx.held.pointerOf(t.port, ctx.sessionId);
    if (a.action === 'up' && last) return [last.x, last.y];
    throw usageError(`pointer {action: "${a.action}"} needs x and y (the screenshot's pixels).`);
  };
  if (a.action === 'drag') {
    const pts = [
      ...(a.path ?? []),
      ...(a.x !== undefined && a.y !== undefined ? [[a.x, a.y] as [number, number]] : []),
    ];
    if (pts.length < 2)
      throw usageError(
        'pointer {action: "drag"} needs at least two points: path [[x0, y0], …] and, optionally, x and y to end at.',
      );
    pts.forEach(([x, y], i) => checkPoint(t, x, y, `path point ${i}`));
    const steps = along(pts, a.frames);
    return [
      { frame: at, move: { k: 'pointer', x: steps[0][0], y: steps[0][1], press: a.button } },
      ...steps.slice(1).map(([x, y], i) => ({ frame: at + i + 1, move: { k: 'pointer' as const, x, y } })),
      {
        frame: at + a.frames + 1,
        move: { k: 'pointer', x: steps[a.frames][0], y: steps[a.frames][1], lift: a.button },
      },
    ];
  }
  const [x, y] = xy();
  checkPoint(t, x, y);
  switch (a.action) {
    case 'move':
      return [{ frame: at, move: { k: 'pointer', x, y } }];
    case 'down':
      return [{ frame: at, move: { k: 'pointer', x, y, press: a.button } }];
    case 'up':
      return [{ frame: at, move: { k: 'pointer', x, y, lift: a.button } }];
    default:
      return [{ frame: at, move: { k: 'click', x, y, button: a.button, count: a.count } }];
  }
}

export const WHEEL = z.object({
  dx: number().default(0).describe('Horizontal scroll in pixels (-10000 to 10000).'),
  dy: number().default(0).describe('Vertical scroll in pixels (-10000 to 10000; positive scrolls down).'),
  x: number().optional().describe('Move the pointer here first (screenshot pixels).'),
  y: number().optional(),
});

export function wheelPlan(_ctx: ToolContext, t: Target, a: z.output<typeof WHEEL>, at: number): Timed[] {
  for (const [k, v] of [
    ['dx', a.dx],
    ['dy', a.dy],
  ] as const)
    if (!(Math.abs(v) <= 10000)) throw usageError(`wheel ${k} takes -10000 to 10000, got ${v}: nothing was sent.`);
  const plan: Timed[] = [];
  if (a.x !== undefined && a.y !== undefined) {
    checkPoint(t, a.x, a.y);
    plan.push({ frame: at, move: { k: 'pointer', x: a.x, y: a.y } });
  }
  plan.push({ frame: at, move: { k: 'wheel', dx: a.dx, dy: a.dy } });
  return plan;
}

export const TAP = z.object({
  x: number().describe("x in the screenshot's pixels."),
  y: number().describe("y in the screenshot's pixels."),
  frames: whole(1, 600).default(1).describe('How many frames the finger stays down (1-600, default 1).'),
});

export function tapPlan(_ctx: ToolContext, t: Target, a: z.output<typeof TAP>, at: number): Timed[] {
  checkPoint(t, a.x, a.y);
  return [
    { frame: at, move: { k: 'touch', id: 0, x: a.x, y: a.y, phase: 'down' } },
    { frame: at + a.frames, move: { k: 'touch', id: 0, x: a.x, y: a.y, phase: 'up' } },
  ];
}

/** Fingers down at the first points, moved together along their paths, lifted on the frame after. */
function fingers(paths: [number, number][][], frames: number, at: number): Timed[] {
  const steps = paths.map((p) => along(p, frames));
  const plan: Timed[] = [];
  steps.forEach((s, id) => {
    plan.push({ frame: at, move: { k: 'touch', id, x: s[0][0], y: s[0][1], phase: 'down' } });
    for (let i = 1; i <= frames; i++)
      plan.push({ frame: at + i, move: { k: 'touch', id, x: s[i][0], y: s[i][1], phase: 'move' } });
    plan.push({ frame: at + frames + 1, move: { k: 'touch', id, x: s[frames][0], y: s[frames][1], phase: 'up' } });
  });
  return plan;
}

export const SWIPE = z.object({
  from: point().describe('Where the finger goes down, [x, y] in screenshot pixels.'),
  to: point().describe('Where it lifts.'),
  frames: gestureFrames('The frames the move takes; the finger lifts on the frame after'),
});

export function swipePlan(_ctx: ToolContext, t: Target, a: z.output<typeof SWIPE>, at: number): Timed[] {
  checkPoint(t, a.from[0], a.from[1], 'from');
  checkPoint(t, a.to[0], a.to[1], 'to');
  return fingers([[a.from, a.to]], a.frames, at);
}

export const PINCH = z.object({
  x: number().describe("The pinch's centre, in screenshot pixels."),
  y: number(),
  from: number().describe('Distance between the two fingers at the start, in pixels (1-10000).'),
  to: number().describe('Distance at the end: larger zooms in, smaller pinches (1-10000).'),
  frames: gestureFrames('The frames the move takes; the fingers lift on the frame after'),
});

export function pinchPlan(_ctx: ToolContext, t: Target, a: z.output<typeof PINCH>, at: number): Timed[] {
  for (const [k, v] of [
    ['from', a.from],
    ['to', a.to],
  ] as const)
    if (!(v >= 1 && v <= 10000)) throw usageError(`pinch ${k} takes 1 to 10000 pixels, got ${v}: nothing was sent.`);
  const ends = (d: number): [[number, number], [number, number]] => [
    [a.x - d / 2, a.y],
    [a.x + d / 2, a.y],
  ];
  const [s, e] = [ends(a.from), ends(a.to)];
  for (const [i, [x, y]] of [...s, ...e].entries())
    checkPoint(t, x, y, `finger ${i % 2} at ${i < 2 ? 'start' : 'end'}`);
  return fingers(
    [
      [s[0], e[0]],
      [s[1], e[1]],
    ],
    a.frames,
    at,
  );
}

export const SET_AXIS = z.object({
  input: z.string().describe("The axis as the game declares it (tools' game.axes), e.g. 'steer'."),
  value: number().describe('The value, within the range the game declares (a stick -1 to 1, a trigger 0 to 1).'),
  frames: whole(1, 600).optional().describe('Hold it for exactly this many frames, then it rests at 0 (1-600).'),
  ms: whole(1, 3600000)
    .optional()
    .describe('Or: hold it this long (the game rests it itself when that runs out) and answer at once.'),
});

export function axisPlan(_ctx: ToolContext, t: Target, a: z.output<typeof SET_AXIS>, at: number): Timed[] {
  if ((a.frames === undefined) === (a.ms === undefined))
    throw usageError('set_axis takes one of frames (hold for N frames, then rest) or ms (a lease).');
  checkAxis(t, a.input, a.value);
  if (a.ms !== undefined) return [{ frame: at, move: { k: 'axis', input: a.input, value: a.value, leaseMs: a.ms } }];
  return [
    { frame: at, move: { k: 'axis', input: a.input, value: a.value, leaseMs: 60_000 } },
    { frame: at + a.frames!, move: { k: 'rest', input: a.input } },
  ];
}

export const TYPE = z.object({ text: z.string().min(1).describe('The text, at most 1000 characters.') });

export function typePlan(_ctx: ToolContext, _t: Target, a: z.output<typeof TYPE>, at: number): Timed[] {
  if (a.text.length > 1000)
    throw usageError(`type takes at most 1000 characters, got ${a.text.length}: nothing was sent.`);
  return [{ frame: at, move: { k: 'text', text: a.text } }];
}

/**
 * `release` frees what this session holds: a named input, an axis (it rests at 0), or, with no
 * name, everything, pointer buttons and touches too. So any of these capabilities will do.
 */
export const RELEASE_NEEDS: Need = HELD_CAPABILITIES;

const isAxis = (t: Target, input: string) => (t.manifest.game.axes ?? []).some((a) => a.name === input);

/** The tools a sequence may play, each with its arguments, its plan and what it needs. */
const KEY_PRESS = z.object({ input: z.string().min(1), frames: whole(1, 600).default(1) });
const KEY_HOLD = z.object({ input: z.string().min(1), ms: whole(1, 3600000) });
const KEY_RELEASE = z.object({ input: z.string().min(1) });

interface StepTool {
  input: z.ZodObject;
  needs: Need;
  plan(ctx: ToolContext, t: Target, args: never, at: number): Timed[];
}

export const STEP_TOOLS: Record<string, StepTool> = {
  pointer: { input: POINTER, needs: 'pointer', plan: pointerPlan },
  wheel: { input: WHEEL, needs: 'pointer', plan: wheelPlan },
  tap: { input: TAP, needs: 'touch', plan: tapPlan },
  swipe: { input: SWIPE, needs: 'touch', plan: swipePlan },
  pinch: { input: PINCH, needs: 'touch', plan: pinchPlan },
  set_axis: { input: SET_AXIS, needs: 'axis', plan: axisPlan },
  type: { input: TYPE, needs: 'text', plan: typePlan },
  press: {
    input: KEY_PRESS,
    needs: 'input',
    plan: (_c, t, a: z.output<typeof KEY_PRESS>, at) => (checkKey(t, a.input), pressPlan(a.input, a.frames, at)),
  },
  hold: {
    input: KEY_HOLD,
    needs: 'input',
    plan: (_c, t, a: z.output<typeof KEY_HOLD>, at) => {
      checkKey(t, a.input);
      return [{ frame: at, move: { k: 'key', input: a.input, down: true, leaseMs: a.ms } }];
    },
  },
  release: {
    input: KEY_RELEASE,
    needs: RELEASE_NEEDS,
    plan: (_c, t, a: z.output<typeof KEY_RELEASE>, at) => {
      if (isAxis(t, a.input)) return [{ frame: at, move: { k: 'rest', input: a.input } }];
      checkKey(t, a.input);
      return [{ frame: at, move: { k: 'key', input: a.input, down: false, leaseMs: 0 } }];
    },
  },
};
export const STEP_NAMES = Object.keys(STEP_TOOLS) as [string, ...string[]];
