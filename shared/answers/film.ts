/** What a filmstrip adds to an answer, and what watch answers (docs/TOOLS.md is written from these). */
import { listedElsewhere, syncAnswerWhen, z } from './fields.js';

/** The contact sheet's facts; its picture is the answer's image block. */
export const filmstripAnswer = z
  .object({
    frames: z
      .array(z.number().nullable())
      .describe("each tile's frame, in order, as its label says (null: the game publishes no frame count)"),
    path: z
      .string()
      .optional()
      .describe(
        'where the frames were read: `simFrame`, or `frame` when the game publishes no simFrame *(when published)*',
      ),
    mimeType: z.string().describe('`image/png`'),
    width: z.number().describe("the sheet's width in pixels"),
    height: z.number().describe('its height'),
    bytes: z.number().describe('its size'),
  })
  .loose();

/** The field an input or a step adds when it was asked for a filmstrip. */
export const filmstripField = {
  filmstrip: listedElsewhere(
    filmstripAnswer.describe(
      "the filmstrip asked for, as `watch` answers it; its picture is the answer's image block *(when filmstrip)*",
    ),
  ).optional(),
};

/** What watch answers: on a paused clock the sync answer of its last step, running the state read after. */
export const watchAnswer = z
  .object({
    ...syncAnswerWhen('paused'),
    command: z.string().optional().describe('`clock.step` *(when paused)*'),
    watched: z.number().describe('frames that passed'),
    every: z.number().describe('a tile every this many frames'),
    paused: z.boolean().describe('true: the frames were stepped on a paused clock; false: the game ran them'),
    filmstrip: filmstripAnswer.describe("the contact sheet; its picture is the answer's image block"),
  })
  .loose();
