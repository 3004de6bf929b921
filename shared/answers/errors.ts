/** What the errors family answers (docs/TOOLS.md is written from these). */
import { gameErrorEntry, z } from './fields.js';

/** What get_errors answers. */
export const getErrorsAnswer = z
  .object({
    errors: z
      .array(gameErrorEntry)
      .describe("the game's errors seen after `since`, oldest first, each once with its count"),
    seq: z.number().describe('the number of the latest: pass it as `since` to list only what is new'),
    total: z.number().describe('how many were seen in all, repeats included'),
    frame: z.number().nullable().describe("the game's frame now, or null when it does not answer"),
  })
  .loose();
