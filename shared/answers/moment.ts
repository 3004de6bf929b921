/** What a restart to a moment answers: launch_instance {restart, to: "here"} and rewind (docs/TOOLS.md is written from these). */
import { z } from './fields.js';

/** The fields, each marked with when it is there (`when`: empty for rewind, where it always is). */
export function momentShape(when: string) {
  const w = (text: string) => (when ? `${text} *(${when})*` : text);
  const opt = <T extends z.ZodType>(t: T) => (when ? t.optional() : t);
  return {
    frame: opt(z.number()).describe(w('the simFrame the game is paused at now')),
    target: opt(z.number()).describe(w('the frame it was asked to reach')),
    reached: opt(z.boolean()).describe(w('true when it got there (false: stopped at a parting)')),
    parting: opt(
      z
        .object({
          path: z.string().describe('the first state path that differs'),
          recorded: z.unknown().describe('its value in the recording'),
          now: z.unknown().describe('its value in the new run'),
          frame: z.number().describe('the simFrame both were read at'),
          after: z.string().describe('the recorded call they were read after, or `here`'),
        })
        .loose()
        .nullable(),
    ).describe(w('where the new run first parted from the recording; null: it did not')),
    codeChanged: opt(z.boolean().nullable()).describe(
      w("whether the game's files changed since its launch; null: the project is too large to tell"),
    ),
    replayed: opt(
      z
        .object({
          calls: z.number().describe('calls made again'),
          ms: z.number().describe('wall time of the relaunch and replay'),
          ratio: z.number().describe('that wall time over the game time replayed (60 frames a second)'),
        })
        .loose(),
    ).describe(w('what the replay did')),
    state: opt(z.unknown()).describe(w('the whole state at that frame')),
    summary: opt(z.string()).describe(w('the same in one sentence')),
  };
}

/** What rewind answers. */
export const rewindAnswer = z
  .object({
    pid: z.number().describe("the relaunched game's pid"),
    previous: z
      .object({ pid: z.number().optional(), how: z.string().optional() })
      .loose()
      .describe('the process it replaced: its pid and how it ended'),
    ...momentShape(''),
  })
  .loose();
