/**
 * The world tools of the bridge toolset (docs/TOOLS.md, "Seeing what is on screen"): find_objects and
 * wait_for_object. Each look reads one `GET /world` and resolves the reference and every
 * candidate inside it, so a distance never mixes two frames.
 */
import { usageError } from '../../../shared/errors.js';
import { look, type WorldSnapshot } from '../../ui/world.js';
import { z } from '../../tool-framework/define.js';
import { treeWaitTimeout } from '../args.js';
import type { ToolContext } from '../../tool-framework/context.js';
import { readTree, seenBy, waitOnTree } from '../trees.js';
import { bridgeTool, type BridgeFamily } from '../declare.js';
import { findObjectsAnswer, waitForObjectAnswer } from '../../../shared/answers/world.js';
import type { ToolAnswer } from '../../tool-framework/types.js';

const nearShape = z.object({
  ref: z.string().min(1).max(200).optional().describe('Near this object (by id).'),
  pos: z.array(z.number()).min(2).max(3).optional().describe('Or near this position, [x, y] or [x, y, z].'),
  within: z.number().min(0).describe('The largest distance that counts as near.'),
});

export const findObjectsInput = z.object({
  type: z.string().max(100).optional().describe("Only objects of this type, e.g. 'crate'."),
  tag: z.string().max(100).optional().describe('Only objects with this tag.'),
  name: z.string().max(200).optional().describe('Only objects whose name or id contains this (case-insensitive).'),
  near: nearShape
    .optional()
    .describe('Only objects within `within` of a ref or a pos, closest first, with their distance.'),
  limit: z.int().min(1).max(200).optional().describe('At most this many matches (default 20).'),
});

export const waitForObjectInput = findObjectsInput.extend({
  timeoutMs: treeWaitTimeout(),
});

function checkNear(tool: string, q: z.output<typeof findObjectsInput>): void {
  if (q.near && (q.near.ref === undefined) === (q.near.pos === undefined))
    throw usageError(`${tool}: near needs exactly one of ref or pos, and within.`);
}

export async function findObjects(
  ctx: ToolContext,
  port: number,
  q: z.output<typeof findObjectsInput>,
  signal?: AbortSignal,
): Promise<ToolAnswer> {
  checkNear('find_objects', q);
  const l = look(await readTree(ctx, port, 'world', signal), q, seenBy(ctx));
  return { json: { view: ctx.config.view, snapshot: l.snapshot, total: l.total, matches: l.matches } };
}

export async function waitForObject(
  ctx: ToolContext,
  port: number,
  q: z.output<typeof waitForObjectInput>,
  signal?: AbortSignal,
): Promise<ToolAnswer> {
  checkNear('wait_for_object', q);
  const timeoutMs = q.timeoutMs ?? ctx.config.timeoutMs;
  const { found: l, elapsedMs } = await waitOnTree(ctx, port, signal, {
    tool: 'wait_for_object',
    timeoutMs,
    read: () => readTree(ctx, port, 'world', signal),
    test(world: WorldSnapshot) {
      const l = look(world, q, seenBy(ctx));
      return l.total > 0 ? l : undefined;
    },
    timedOut: (last) => ({
      lastValue: 'no match',
      message:
        `wait_for_object found no match within ${timeoutMs}ms on port ${port} (last look: world revision ${last.revision ?? '?'}, snapshot ${last.frameSequence ?? '?'}, ${last.objects.length} objects). ` +
        'Look with find_objects or snapshot {tree: "world"}, or raise timeoutMs.',
    }),
  });
  return {
    json: { view: ctx.config.view, matched: true, elapsedMs, snapshot: l.snapshot, total: l.total, matches: l.matches },
  };
}

export const findObjectsTool = bridgeTool({
  name: 'find_objects',
  output: findObjectsAnswer,
  title: 'Find objects in the world',
  description:
    'Find objects in the world tree by type, tag, name, or nearness to an object or a position; each match with its distance and the snapshot it was measured in.',
  needs: 'world',
  input: findObjectsInput,
  effect: { readOnly: true },
  player: true,
  recorded: false,
  handler: (args, ctx, call) => findObjects(ctx, call.port, args, call.signal),
});

export const waitForObjectTool = bridgeTool({
  name: 'wait_for_object',
  output: waitForObjectAnswer,
  title: 'Wait for an object',
  description:
    'Look at fresh world snapshots until find_objects would find something; returns the matches and the snapshot.',
  needs: 'world',
  input: waitForObjectInput,
  effect: { readOnly: true },
  player: true,
  recorded: 'check',
  handler: (args, ctx, call) => waitForObject(ctx, call.port, args, call.signal),
});

/** The family (index.ts): its tools in describe_toolset's order, and its clause of the description. */
export const worldFamily: BridgeFamily = {
  name: 'world',
  clause: 'and, on games that publish a world tree ("world"), find the objects in it (find_objects, wait_for_object)',
  tools: [findObjectsTool, waitForObjectTool],
};
