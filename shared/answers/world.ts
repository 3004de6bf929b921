/** What the tools of the world tree answer (docs/TOOLS.md is written from these). */
import { z } from './fields.js';

/** What find_objects answers. */
export const findObjectsAnswer = z
  .object({
    snapshot: z
      .object({
        sessionEpoch: z.number().optional().describe("the game's run *(when the game publishes one)*"),
        frameSequence: z
          .number()
          .optional()
          .describe('which publication (grows with every one) *(when the game publishes one)*'),
        revision: z
          .number()
          .optional()
          .describe("the content's revision (grows only when it changes) *(when the game publishes one)*"),
      })
      .loose()
      .describe('the publication read: `sessionEpoch`, `frameSequence`, `revision`'),
    total: z.number().describe('how many matched (before `limit`)'),
    matches: z
      .array(
        z
          .object({
            id: z.string().describe('its ref'),
            type: z.string().describe('crate, player, …'),
            name: z.string().optional().describe('*(when it has one)*'),
            pos: z.array(z.number()).optional().describe('`[x, y]` or `[x, y, z]` *(when it has one)*'),
            tags: z.array(z.string()).optional().describe('*(when it has some)*'),
            props: z.unknown().optional().describe("the game's own facts about it *(when it has some)*"),
            player: z.boolean().optional().describe('true: a player can see it *(when so)*'),
            distance: z
              .number()
              .optional()
              .describe('from the reference, measured inside the one snapshot *(when near)*'),
          })
          .loose(),
      )
      .describe('the matches, closest first with `near`'),
  })
  .loose();

/** What wait_for_object answers. */
export const waitForObjectAnswer = z
  .object({
    matched: z.boolean().describe('true (no match in time fails with CommandTimeout)'),
    elapsedMs: z.number().describe('how long it took'),
    snapshot: z
      .object({
        sessionEpoch: z.number().optional().describe("the game's run *(when the game publishes one)*"),
        frameSequence: z
          .number()
          .optional()
          .describe('which publication (grows with every one) *(when the game publishes one)*'),
        revision: z
          .number()
          .optional()
          .describe("the content's revision (grows only when it changes) *(when the game publishes one)*"),
      })
      .loose()
      .describe('the publication read: `sessionEpoch`, `frameSequence`, `revision`'),
    total: z.number().describe('how many matched'),
    matches: z
      .array(
        z
          .object({
            id: z.string().describe('its ref'),
            type: z.string().describe('crate, player, …'),
            name: z.string().optional().describe('*(when it has one)*'),
            pos: z.array(z.number()).optional().describe('`[x, y]` or `[x, y, z]` *(when it has one)*'),
            tags: z.array(z.string()).optional().describe('*(when it has some)*'),
            props: z.unknown().optional().describe("the game's own facts about it *(when it has some)*"),
            player: z.boolean().optional().describe('true: a player can see it *(when so)*'),
            distance: z.unknown().optional().describe('*(when near)*'),
          })
          .loose(),
      )
      .describe('as find_objects'),
  })
  .loose();
