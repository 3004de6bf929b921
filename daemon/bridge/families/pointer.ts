/**
 * Every input a player has beyond named buttons (docs/KITS.md, "Pointer, touch, analog axes and
 * text"): pointer (move, down, up, click, drag along a path over N frames), wheel, tap, swipe,
 * pinch, set_axis, type, and input_sequence, several of them at frame offsets. Coordinates are
 * the screenshot's pixels, and every answer names that grid. Values out of range are refused
 * before anything is sent. What a call holds belongs to this session, like a held input. What
 * each plans: gesture-plans.ts; how a plan is played on the game's clock: gesture-play.ts.
 */
import { isBridgeError, usageError } from '../../../shared/errors.js';
import { z } from '../../tool-framework/define.js';
import { whole } from '../args.js';
import { bridgeTool, type BridgeFamily } from '../declare.js';
import {
  inputSequenceAnswer,
  pinchAnswer,
  pointerAnswer,
  setAxisAnswer,
  swipeAnswer,
  tapAnswer,
  typeAnswer,
  wheelAnswer,
} from '../../../shared/answers/pointer.js';
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
} from '../gesture-plans.js';
import { filmFor, filmstripArg, withFilm } from '../film.js';
import { play } from '../gesture-play.js';
import { targetOf, type Target, type Timed } from '../gestures.js';
import type { Need } from '../needs.js';
import type { ToolContext } from '../../tool-framework/context.js';

/**
 * One input tool: its arguments parsed by the declaration, planned as device moves at frame
 * offsets from 0, played on the game's clock, answered with what it did and the state after.
 */
function inputTool<S extends z.ZodObject>(decl: {
  name: string;
  title: string;
  description: string;
  needs?: Need;
  needsOf?(args: z.output<S>): Need[];
  input: S;
  output: z.ZodObject;
  plan(ctx: ToolContext, t: Target, args: z.output<S>): Timed[];
  /** what the answer says of the call, beside the state after */
  echo(args: z.output<S>): Record<string, unknown>;
}) {
  const { plan, echo, input, needsOf, ...rest } = decl;
  // The filmstrip is the call's, not its moves': an input_sequence step never takes one.
  const filmed = input.extend({ filmstrip: filmstripArg() });
  type Args = z.output<S> & { filmstrip?: number };
  return bridgeTool({
    ...rest,
    ...(needsOf ? { needsOf: (args: Args) => needsOf(args) } : {}),
    input: filmed as unknown as S,
    effect: { readOnly: false },
    player: true,
    recorded: 'do',
    async handler(a, ctx, call) {
      const args = a as Args;
      const t = await targetOf(ctx, call.port);
      const moves = plan(ctx, t, args);
      const total = Math.max(0, ...moves.map((m) => m.frame));
      const film = await filmFor(ctx, call.port, rest.name, total, args.filmstrip);
      const done = await play(ctx, t, moves, call, film);
      return withFilm({ json: { ...echo(args), ...done } }, film);
    },
  });
}

export const pointer = inputTool({
  name: 'pointer',
  output: pointerAnswer,
  title: 'Move, click or drag the pointer',
  description:
    "Move the pointer, press or lift a button, click (double with count 2), or drag along a path over N frames, at the screenshot's pixels; the answer names the grid and carries the state after. On a paused clock each move lands on its frame exactly.",
  needs: 'pointer',
  input: POINTER,
  plan: (ctx, t, a) => pointerPlan(ctx, t, a, 0),
  echo: (a) => ({ action: a.action, ...xyOf(a), button: a.button }),
});

const xyOf = (a: { x?: number; y?: number }) => (a.x !== undefined && a.y !== undefined ? { x: a.x, y: a.y } : {});

export const wheel = inputTool({
  name: 'wheel',
  output: wheelAnswer,
  title: 'Turn the mouse wheel',
  description: 'One wheel event at the pointer (or at x, y), and the state after.',
  needs: 'pointer',
  input: WHEEL,
  plan: (ctx, t, a) => wheelPlan(ctx, t, a, 0),
  echo: (a) => ({ dx: a.dx, dy: a.dy }),
});

export const tap = inputTool({
  name: 'tap',
  output: tapAnswer,
  title: 'Tap the screen',
  description: "Touch x, y (the screenshot's pixels) for `frames` frames, lift, and return the state after.",
  needs: 'touch',
  input: TAP,
  plan: (ctx, t, a) => tapPlan(ctx, t, a, 0),
  echo: (a) => ({ x: a.x, y: a.y }),
});

export const swipe = inputTool({
  name: 'swipe',
  output: swipeAnswer,
  title: 'Swipe a finger',
  description: 'One finger down at `from`, moved to `to` over `frames` frames, lifted; the state after.',
  needs: 'touch',
  input: SWIPE,
  plan: (ctx, t, a) => swipePlan(ctx, t, a, 0),
  echo: (a) => ({ from: a.from, to: a.to }),
});

export const pinch = inputTool({
  name: 'pinch',
  output: pinchAnswer,
  title: 'Pinch with two fingers',
  description:
    'Two fingers on either side of x, y, `from` pixels apart, moved to `to` apart over `frames` frames, lifted; the state after.',
  needs: 'touch',
  input: PINCH,
  plan: (ctx, t, a) => pinchPlan(ctx, t, a, 0),
  echo: (a) => ({ x: a.x, y: a.y, from: a.from, to: a.to }),
});

export const setAxis = inputTool({
  name: 'set_axis',
  output: setAxisAnswer,
  title: 'Hold an analog axis',
  description:
    'Hold a stick or trigger at a value for `frames` frames (then it rests at 0), or for `ms` milliseconds (the game rests it when the lease ends; `release` rests it sooner). A value outside the declared range is refused with the range.',
  needs: 'axis',
  input: SET_AXIS,
  plan: (ctx, t, a) => axisPlan(ctx, t, a, 0),
  echo: (a) => ({ input: a.input, value: a.value }),
});

export const type = inputTool({
  name: 'type',
  output: typeAnswer,
  title: 'Type text',
  description:
    "Type text into the focused field (on a page: a key event per character, so a canvas game's key handler sees it too); the state after.",
  needs: 'text',
  input: TYPE,
  plan: (ctx, t, a) => typePlan(ctx, t, a, 0),
  echo: (a) => ({ typed: a.text.length }),
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

export const inputSequence = inputTool({
  name: 'input_sequence',
  output: inputSequenceAnswer,
  title: 'Play inputs at frame offsets',
  description:
    "Play several inputs (pointer, wheel, tap, swipe, pinch, set_axis, type, press, hold, release), each at its frame offset: frame-exact on a paused clock (stepped between them), as close as real time allows on a running one; answers with the state after the last. Every step is checked before anything is sent. Needs the capabilities its steps' tools need.",
  needsOf: (args) => [...new Set(args.steps.map((s) => STEP_TOOLS[s.tool].needs))],
  input: SEQUENCE,
  plan: (ctx, t, args) =>
    args.steps.flatMap((s, i) => {
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
    }),
  echo: (args) => ({ steps: args.steps.length }),
});

/** The family (index.ts): its tools in describe_toolset's order, and its clause of the description. */
export const pointerFamily: BridgeFamily = {
  name: 'pointer',
  clause:
    'and, on games that declare "pointer"/"touch"/"axis"/"text" or a page this bridge opened, point, drag, touch, steer and type, alone or at frame offsets (pointer, wheel, tap, swipe, pinch, set_axis, type, input_sequence)',
  tools: [pointer, wheel, tap, swipe, pinch, setAxis, type, inputSequence],
};
