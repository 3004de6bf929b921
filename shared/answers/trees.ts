/** What the answers about the UI and world trees share: the publication read, a UI node, a world object. */
import { z } from './fields.js';

/** Which publication of a tree an answer was read from. */
export const publication = z
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
  .describe('the publication read: `sessionEpoch`, `frameSequence`, `revision`');

/** A node of the UI tree. */
export const uiNode = z
  .object({
    id: z.string().describe('its ref'),
    role: z.string().describe('button, slider, text, …'),
    name: z.string().describe('what a player reads'),
    value: z.unknown().optional().describe('*(when it has one)*'),
    min: z.unknown().optional().describe('*(when it has one)*'),
    max: z.unknown().optional().describe('*(when it has one)*'),
    checked: z.unknown().optional().describe('*(when it applies)*'),
    selected: z.unknown().optional().describe('*(when it applies)*'),
    focused: z.unknown().optional().describe('*(when it has the focus)*'),
    visible: z.boolean().optional().describe('false *(when hidden)*'),
    enabled: z.boolean().optional().describe('false *(when disabled)*'),
    rect: z.unknown().optional().describe('`[x, y, w, h]` in screenshot pixels *(when the game knows it)*'),
    children: z
      .array(z.unknown())
      .optional()
      .describe('the nodes inside it *(when it has some; not in a role or name filter)*'),
  })
  .loose();

/** An object of the world tree. */
export const worldObject = z
  .object({
    id: z.string().describe('its ref'),
    type: z.string().describe('crate, player, …'),
    name: z.string().optional().describe('*(when it has one)*'),
    pos: z.array(z.number()).optional().describe('`[x, y]` or `[x, y, z]` *(when it has one)*'),
    tags: z.array(z.string()).optional().describe('*(when it has some)*'),
    props: z.unknown().optional().describe("the game's own facts about it *(when it has some)*"),
    player: z.boolean().optional().describe('true: a player can see it *(when so)*'),
  })
  .loose();

/** A world object found by find_objects or wait_for_object. */
export const worldMatch = worldObject.extend({
  distance: z.number().optional().describe('from the reference, measured inside the one snapshot *(when near)*'),
});
