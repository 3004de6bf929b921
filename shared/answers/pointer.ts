/** What the tools of pointer, touch, axes, text and input sequences answer (docs/TOOLS.md is written from these). */
import { syncAnswerWhen, z } from './fields.js';
import { filmstripField } from './film.js';

/**
 * What every gesture answers: how it was played and, through the kit, the sync answer of its
 * last command; through the browser there is no command, only the state after.
 */
const gestureShape = {
  ...syncAnswerWhen('via game'),
  via: z
    .string()
    .describe("`game` (the kit's reserved commands) or `browser` (real Chromium events on a page this bridge opened)"),
  frames: z.number().describe('the frames the call played, from its first input to its last (0: all at once)'),
  grid: z
    .object({
      width: z.number().optional().describe('*(when known)*'),
      height: z.number().optional().describe('*(when known)*'),
    })
    .loose()
    .nullable()
    .describe("the screenshot's size the coordinates are on, `null` when the game takes no screenshots"),
  command: z
    .string()
    .optional()
    .describe('the last reserved command sent, whose confirmation confirms all of them *(when via game)*'),
  ...filmstripField,
};

const point = z.unknown().optional();

/** What pointer answers. */
export const pointerAnswer = z
  .object({
    ...gestureShape,
    action: z.string().describe('`move`, `down`, `up`, `click` or `drag`'),
    x: z.number().optional().describe('*(when given)*'),
    y: z.number().optional().describe('*(when given)*'),
    button: z.string().describe('`left`, `right` or `middle`'),
  })
  .loose();

/** What wheel answers. */
export const wheelAnswer = z
  .object({
    ...gestureShape,
    dx: z.number().describe('horizontal pixels'),
    dy: z.number().describe('vertical pixels'),
  })
  .loose();

/** What tap answers. */
export const tapAnswer = z.object({ ...gestureShape, x: point, y: point }).loose();

/** What swipe answers. */
export const swipeAnswer = z.object({ ...gestureShape, from: point, to: point }).loose();

/** What pinch answers. */
export const pinchAnswer = z.object({ ...gestureShape, x: point, y: point, from: point, to: point }).loose();

/** What set_axis answers. */
export const setAxisAnswer = z
  .object({
    ...gestureShape,
    input: z.string().describe('the axis'),
    value: z.unknown().describe('the value held'),
  })
  .loose();

/** What type answers. */
export const typeAnswer = z
  .object({ ...gestureShape, typed: z.number().describe('how many characters were typed') })
  .loose();

/** What input_sequence answers. */
export const inputSequenceAnswer = z
  .object({ ...gestureShape, steps: z.number().describe('how many steps were played') })
  .loose();
