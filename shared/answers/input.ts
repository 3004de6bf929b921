/** What the tools of named inputs: press, hold, release answer (docs/TOOLS.md is written from these). */
import { syncAnswerShape, z } from './fields.js';
import { filmstripField } from './film.js';

/** What press answers. */
export const pressAnswer = z
  .object({
    ...syncAnswerShape,
    input: z.string().describe('the input pressed'),
    frames: z.number().describe('for how many frames it was held'),
    command: z.string().describe('`input.release` (the last step of the press)'),
    ...filmstripField,
  })
  .loose();

/** What hold answers. */
export const holdAnswer = z
  .object({
    ...syncAnswerShape,
    input: z.string().describe('the input now held by this session'),
    ms: z.number().describe('its lease: the game lets go by itself after this long'),
    clockPaused: z
      .boolean()
      .optional()
      .describe("true: the game's clock is paused, so the held input moves nothing yet *(when the clock is paused)*"),
    note: z
      .unknown()
      .optional()
      .describe('what that means and what to do: resume, or step frame by frame *(when the clock is paused)*'),
    command: z.string().describe('`input.hold`'),
  })
  .loose();

/** What release answers. */
export const releaseAnswer = z
  .object({
    ...syncAnswerShape,
    released: z.string().describe('the input let go, or `everything this session holds`'),
    command: z.string().describe('`input.release` or `input.releaseAll`'),
  })
  .loose();
