/** What the tools of the clock: pause, resume, step answer (docs/TOOLS.md is written from these). */
import { syncAnswerShape, z } from './fields.js';
import { filmstripField } from './film.js';

/** What step answers. */
export const stepAnswer = z
  .object({
    ...syncAnswerShape,
    stepped: z.number().describe('frames simulated'),
    matched: z.boolean().optional().describe('whether `until` held *(when until)*'),
    path: z.string().optional().describe('the path `until` watched *(when until)*'),
    value: z.unknown().optional().describe('its value at the last frame *(when until)*'),
    command: z.string().describe('`clock.step`'),
    ...filmstripField,
  })
  .loose();
