/** What the tools of the UI tree: snapshot and acting on nodes answer (docs/TOOLS.md is written from these). */
import { syncAnswerShape, z } from './fields.js';
import { publication, uiNode, worldObject } from './trees.js';

/** What snapshot answers. */
export const snapshotAnswer = z
  .object({
    tree: z.string().describe('`ui`, `world` or `both`'),
    snapshot: publication,
    unchanged: z.boolean().optional().describe('true: still at the revision given as `since` *(when since matched)*'),
    screen: z.string().optional().describe("the screen's name *(when ui and the game names it)*"),
    nodes: z
      .array(uiNode)
      .optional()
      .describe('the UI tree, hidden nodes left out unless asked for; flat with role or name *(when ui, and changed)*'),
    objects: z.array(worldObject).optional().describe("the world's objects *(when tree is world, and changed)*"),
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

/** What acting on a node answers: the command's sync answer, the node as it was checked and as it is after. */
function nodeActAnswer(said: { ref: string; checkedAt: string; node: string }) {
  return z
    .object({
      ...syncAnswerShape,
      ref: z.string().describe(said.ref),
      command: z.string().describe('the reserved command sent'),
      applied: z.boolean().describe('true (a command the game refuses fails with CommandFailed)'),
      snapshot: publication,
      checkedAt: publication.describe(said.checkedAt),
      target: z
        .object({
          role: z.string().describe('its role'),
          name: z.string().describe('its name'),
        })
        .loose()
        .describe(
          'the node as it was checked: `role` and `name` (a saved test re-binds the step by them when the ref is gone)',
        ),
      node: uiNode.nullable().describe(said.node),
    })
    .loose();
}

/** What click (and activate) answers. */
export const clickAnswer = nodeActAnswer({
  ref: 'the node pressed',
  checkedAt: 'the snapshot the node was checked against before sending',
  node: 'the node after it, or null when it is gone',
});

/** What set_value answers. */
export const setValueAnswer = nodeActAnswer({
  ref: 'the node set',
  checkedAt: 'the snapshot the node and the value were checked against',
  node: 'the node after it, with its new value',
});

/** What wait_for_node answers. */
export const waitForNodeAnswer = z
  .object({
    matched: z.boolean().describe('true (a wait that does not hold fails with CommandTimeout)'),
    state: z.string().describe('the state waited for'),
    node: uiNode.nullable().describe('the node it held for, or null for `gone` (and `hidden` by absence)'),
    elapsedMs: z.number().describe('how long it took'),
    snapshot: publication,
  })
  .loose();
