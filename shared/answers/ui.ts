/** What the tools of the UI tree: snapshot and acting on nodes answer (docs/TOOLS.md is written from these). */
import { syncAnswerShape, z } from './fields.js';

/** What snapshot answers. */
export const snapshotAnswer = z
  .object({
    tree: z.string().describe('`ui`, `world` or `both`'),
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
    unchanged: z.boolean().optional().describe('true: still at the revision given as `since` *(when since matched)*'),
    screen: z.string().optional().describe("the screen's name *(when ui and the game names it)*"),
    nodes: z
      .array(
        z
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
          .loose(),
      )
      .optional()
      .describe('the UI tree, hidden nodes left out unless asked for; flat with role or name *(when ui, and changed)*'),
    objects: z
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
          })
          .loose(),
      )
      .optional()
      .describe("the world's objects *(when tree is world, and changed)*"),
    total: z.number().optional().describe('how many objects there are *(when tree is world, and changed)*'),
    world: z
      .object({
        snapshot: z.record(z.string(), z.unknown()).optional().describe('*(when both)*'),
        objects: z.array(z.unknown()).optional().describe('*(when both)*'),
        total: z.number().optional().describe('*(when both)*'),
      })
      .loose()
      .optional()
      .describe('the world beside the UI: `snapshot`, `objects`, `total` *(when both)*'),
  })
  .loose();

/** What click answers. */
export const clickAnswer = z
  .object({
    ...syncAnswerShape,
    ref: z.string().describe('the node pressed'),
    command: z.string().describe('the reserved command sent'),
    applied: z.boolean().describe('true (a command the game refuses fails with CommandFailed)'),
    confirmation: z.string().describe('see call_tool'),
    events: z.array(z.string()).describe('its recent events'),
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
    checkedAt: z
      .object({
        sessionEpoch: z.number().optional().describe('*(when the game publishes one)*'),
        frameSequence: z.number().optional().describe('*(when the game publishes one)*'),
        revision: z.number().optional().describe('*(when the game publishes one)*'),
      })
      .loose()
      .describe('the snapshot the node was checked against before sending'),
    target: z
      .object({
        role: z.string().describe('its role'),
        name: z.string().describe('its name'),
      })
      .loose()
      .describe(
        'the node as it was checked: `role` and `name` (a saved test re-binds the step by them when the ref is gone)',
      ),
    node: z
      .object({
        id: z.string().optional().describe('*(when it is still there)*'),
        role: z.string().optional().describe('*(when it is still there)*'),
        name: z.string().optional().describe('*(when it is still there)*'),
        value: z.unknown().optional().describe('*(when it has one)*'),
        min: z.unknown().optional().describe('*(when it has one)*'),
        max: z.unknown().optional().describe('*(when it has one)*'),
        rect: z.array(z.number()).optional().describe('*(when the game knows it)*'),
        enabled: z.boolean().optional().describe('false *(when disabled now)*'),
        visible: z.boolean().optional().describe('false *(when hidden now)*'),
        focused: z.unknown().optional().describe('*(when it has the focus)*'),
        checked: z.unknown().optional().describe('*(when it applies)*'),
        selected: z.unknown().optional().describe('*(when it applies)*'),
      })
      .loose()
      .nullable()
      .describe('the node after it, or null when it is gone'),
  })
  .loose();

/** What set_value answers. */
export const setValueAnswer = z
  .object({
    ...syncAnswerShape,
    ref: z.string().describe('the node set'),
    command: z.string().describe('the reserved command sent'),
    applied: z.boolean().describe('true (a command the game refuses fails with CommandFailed)'),
    confirmation: z.string().describe('see call_tool'),
    events: z.array(z.string()).describe('its recent events'),
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
    checkedAt: z
      .object({
        sessionEpoch: z.number().optional().describe('*(when the game publishes one)*'),
        frameSequence: z.number().optional().describe('*(when the game publishes one)*'),
        revision: z.number().optional().describe('*(when the game publishes one)*'),
      })
      .loose()
      .describe('the snapshot the node and the value were checked against'),
    target: z
      .object({
        role: z.string().describe('its role'),
        name: z.string().describe('its name'),
      })
      .loose()
      .describe(
        'the node as it was checked: `role` and `name` (a saved test re-binds the step by them when the ref is gone)',
      ),
    node: z
      .object({
        id: z.string().optional().describe('*(when it is still there)*'),
        role: z.string().optional().describe('*(when it is still there)*'),
        name: z.string().optional().describe('*(when it is still there)*'),
        value: z.unknown().optional().describe('*(when it has one)*'),
        min: z.unknown().optional().describe('*(when it has one)*'),
        max: z.unknown().optional().describe('*(when it has one)*'),
        rect: z.unknown().optional().describe('*(when the game knows it)*'),
        focused: z.unknown().optional().describe('*(when it has the focus)*'),
        checked: z.unknown().optional().describe('*(when it applies)*'),
      })
      .loose()
      .describe('the node after it, with its new value'),
  })
  .loose();

/** What wait_for_node answers. */
export const waitForNodeAnswer = z
  .object({
    matched: z.boolean().describe('true (a wait that does not hold fails with CommandTimeout)'),
    state: z.string().describe('the state waited for'),
    node: z
      .object({
        id: z.string().optional().describe('*(when a node)*'),
        role: z.string().optional().describe('*(when a node)*'),
        name: z.string().optional().describe('*(when a node)*'),
        value: z.unknown().optional().describe('*(when it has one)*'),
        min: z.unknown().optional().describe('*(when it has one)*'),
        max: z.unknown().optional().describe('*(when it has one)*'),
        rect: z.unknown().optional().describe('*(when the game knows it)*'),
        enabled: z.boolean().optional().describe('false *(when disabled)*'),
        visible: z.boolean().optional().describe('false *(when hidden)*'),
      })
      .loose()
      .nullable()
      .describe('the node it held for, or null for `gone` (and `hidden` by absence)'),
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
  })
  .loose();
