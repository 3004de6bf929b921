/**
 * Every input a player has beyond named buttons (docs/KITS.md, "Pointer, touch, analog axes and
 * text"): pointer (move, down, up, click, drag along a path over N frames), wheel, tap, swipe,
 * pinch, set_axis, type, and input_sequence, several of them at frame offsets. Coordinates are
 * the screenshot's pixels, and every answer names that grid. Values out of range are refused
 * before anything is sent. What a call holds belongs to this session, like a held input. What
 * each plans: gesture-plans.ts; how a plan is played on the game's clock: gesture-play.ts.
 */
import { isBridgeError, usageError } from '../../shared/errors.js';
import { z } from '../toolkit/define.js';
import { whole } from './args.js';
import { bridgeTool } from './declare.js';
import {
  axisPlan,
  pinchPlan,
  pointerPlan,
  swipePlan,
  tapPlan,
  typePlan,
  wheelPlan,
  PINCH,
  POINTER,
  SET_AXIS,
  STEP_NAMES,
  STEP_TOOLS,
  SWIPE,
  TAP,
  TYPE,
  WHEEL,
} from './gesture-plans.js';
import { play } from './gesture-play.js';
import { targetOf } from './gestures.js';

export const pointer = bridgeTool({
  name: 'pointer',
  title: 'Move, click or drag the pointer',
  description:
    "Move the pointer, press or lift a button, click (double with count 2), or drag along a path over N frames, at the screenshot's pixels; the answer names the grid and carries the state after. On a paused clock each move lands on its frame exactly.",
  needs: 'pointer',
  input: POINTER,
  effect: { readOnly: false },
  async handler(args, ctx, call) {
    const t = await targetOf(ctx, call.port);
    const plan = pointerPlan(ctx, t, args, 0);
    const done = await play(ctx, t, plan, call);
    return { json: { action: args.action, ...xyOf(args), button: args.button, ...done } };
  },
});

const xyOf = (a: { x?: number; y?: number }) => (a.x !== undefined && a.y !== undefined ? { x: a.x, y: a.y } : {});

export const wheel = bridgeTool({
  name: 'wheel',
  title: 'Turn the mouse wheel',
  description: 'One wheel event at the pointer (or at x, y), and the state after.',
  needs: 'pointer',
  input: WHEEL,
  effect: { readOnly: false },
  async handler(args, ctx, call) {
    const t = await targetOf(ctx, call.port);
    const done = await play(ctx, t, wheelPlan(ctx, t, args, 0), call);
    return { json: { dx: args.dx, dy: args.dy, ...done } };
  },
});

export const tap = bridgeTool({
  name: 'tap',
  title: 'Tap the screen',
  description: "Touch x, y (the screenshot's pixels) for `frames` frames, lift, and return the state after.",
  needs: 'touch',
  input: TAP,
  effect: { readOnly: false },
  async handler(args, ctx, call) {
    const t = await targetOf(ctx, call.port);
    const done = await play(ctx, t, tapPlan(ctx, t, args, 0), call);
    return { json: { x: args.x, y: args.y, ...done } };
  },
});

export const swipe = bridgeTool({
  name: 'swipe',
  title: 'Swipe a finger',
  description: 'One finger down at `from`, moved to `to` over `frames` frames, lifted; the state after.',
  needs: 'touch',
  input: SWIPE,
  effect: { readOnly: false },
  async handler(args, ctx, call) {
    const t = await targetOf(ctx, call.port);
    const done = await play(ctx, t, swipePlan(ctx, t, args, 0), call);
    return { json: { from: args.from, to: args.to, ...done } };
  },
});

export const pinch = bridgeTool({
  name: 'pinch',
  title: 'Pinch with two fingers',
  description:
    'Two fingers on either side of x, y, `from` pixels apart, moved to `to` apart over `frames` frames, lifted; the state after.',
  needs: 'touch',
  input: PINCH,
  effect: { readOnly: false },
  async handler(args, ctx, call) {
    const t = await targetOf(ctx, call.port);
    const done = await play(ctx, t, pinchPlan(ctx, t, args, 0), call);
    return { json: { x: args.x, y: args.y, from: args.from, to: args.to, ...done } };
  },
});

export const setAxis = bridgeTool({
  name: 'set_axis',
  title: 'Hold an analog axis',
  description:
    'Hold a stick or trigger at a value for `frames` frames (then it rests at 0), or for `ms` milliseconds (the game rests it when the lease ends). A value outside the declared range is refused with the range.',
  needs: 'axis',
  input: SET_AXIS,
  effect: { readOnly: false },
  async handler(args, ctx, call) {
    const t = await targetOf(ctx, call.port);
    const done = await play(ctx, t, axisPlan(ctx, t, args, 0), call);
    return { json: { input: args.input, value: args.value, ...done } };
  },
});

export const type = bridgeTool({
  name: 'type',
  title: 'Type text',
  description:
    "Type text into the focused field (on a page: a key event per character, so a canvas game's key handler sees it too); the state after.",
  needs: 'text',
  input: TYPE,
  effect: { readOnly: false },
  async handler(args, ctx, call) {
    const t = await targetOf(ctx, call.port);
    const done = await play(ctx, t, typePlan(ctx, t, args, 0), call);
    return { json: { typed: args.text.length, ...done } };
  },
});

const SEQUENCE = z.object({
  steps: z
    .array(
      z.object({
        frame: whole(0, 10000).describe('Frames after the sequence starts (0-10000).'),
        tool: z.enum(STEP_NAMES).describe('One of the input tools.'),
        args: z.record(z.string(), z.unknown()).default({}).describe("That tool's arguments."),
      }),
    )
    .min(1)
    .max(500)
    .describe(`The inputs, each at its frame: ${STEP_NAMES.join(', ')}.`),
});

export const inputSequence = bridgeTool({
  name: 'input_sequence',
  title: 'Play inputs at frame offsets',
  description:
    "Play several inputs (pointer, wheel, tap, swipe, pinch, set_axis, type, press, hold, release), each at its frame offset: frame-exact on a paused clock (stepped between them), as close as real time allows on a running one; answers with the state after the last. Every step is checked before anything is sent. Needs the capabilities its steps' tools need.",
  needsOf: (args) => [...new Set(args.steps.map((s) => STEP_TOOLS[s.tool].needs))],
  input: SEQUENCE,
  effect: { readOnly: false },
  async handler(args, ctx, call) {
    const t = await targetOf(ctx, call.port);
    const plan = args.steps.flatMap((s, i) => {
      const parsed = STEP_TOOLS[s.tool].input.safeParse(s.args);
      if (!parsed.success)
        throw usageError(
          `steps[${i}] (${s.tool}): ${parsed.error.issues.map((e) => `${e.path.join('.') || 'args'}: ${e.message}`).join('; ')}. Nothing was sent.`,
        );
      try {
        return STEP_TOOLS[s.tool].plan(ctx, t, parsed.data as never, s.frame);
      } catch (e) {
        if (isBridgeError(e) && e.data.kind === 'BridgeUsageError')
          throw usageError(`steps[${i}] (${s.tool}): ${e.message}`);
        throw e;
      }
    });
    const done = await play(ctx, t, plan, call);
    return { json: { steps: args.steps.length, ...done } };
  },
});

/** The family, in the order describe_toolset lists it. */
export const POINTER_TOOLS = [pointer, wheel, tap, swipe, pinch, setAxis, type, inputSequence];
