/**
 * The world tools of the bridge toolset (README.md, "See what is on screen"): find_objects and
 * wait_for_object. Each look reads one `GET /world` and resolves the reference and every
 * candidate inside it, so a distance never mixes two frames.
 */
import { BridgeError, usageError } from '../../shared/errors.js';
import { ProcessWatch } from '../sync/command.js';
import { pollDelay } from '../sync/poll.js';
import { sleep } from '../../shared/sleep.js';
import { look, type WorldSnapshot } from '../ui/world.js';
import { defineTool, z } from '../tools/define.js';
import type { ToolContext } from '../tools/context.js';
import { readTree, seenBy } from './trees.js';
import type { BridgeCall, ToolAnswer } from '../tools/types.js';

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
  timeoutMs: z
    .int()
    .min(0)
    .max(600000)
    .optional()
    .describe("Give up after this long. Default: the bridge's --timeout."),
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
  const started = Date.now();
  const watch = new ProcessWatch(port, 'wait_for_object', ctx.generation(port));
  let last: WorldSnapshot | undefined;
  for (let attempt = 0; ; attempt++) {
    const world = await readTree(ctx, port, 'world', signal);
    watch.check(world.frameSequence);
    last = world;
    const l = look(world, q, seenBy(ctx));
    if (l.total > 0)
      return {
        json: {
          view: ctx.config.view,
          matched: true,
          elapsedMs: Date.now() - started,
          snapshot: l.snapshot,
          total: l.total,
          matches: l.matches,
        },
      };
    const remaining = timeoutMs - (Date.now() - started);
    if (remaining <= 0)
      throw new BridgeError(
        {
          kind: 'CommandTimeout',
          port,
          timeoutMs,
          path: 'wait_for_object',
          lastValue: 'no match',
          ...(last.frameSequence !== undefined ? { frame: last.frameSequence } : {}),
        },
        `wait_for_object found no match within ${timeoutMs}ms on port ${port} (last look: world revision ${last.revision ?? '?'}, frame ${last.frameSequence ?? '?'}, ${last.objects.length} objects). ` +
          'Look with find_objects or snapshot {tree: "world"}, or raise timeoutMs.',
      );
    if (signal?.aborted) throw usageError('wait_for_object was cancelled.');
    await sleep(Math.min(pollDelay(attempt + 2), remaining), signal);
  }
}

const needs = ' Needs the game\'s "world" capability (GET /world).';

export const findObjectsTool = defineTool({
  name: 'find_objects',
  title: 'Find objects in the world',
  description:
    'Find objects in the world tree by type, tag, name, or nearness to an object or a position; each match with its distance and the snapshot it was measured in.' +
    needs,
  input: findObjectsInput,
  effect: { readOnly: true },
  async handler(args, ctx, call: BridgeCall) {
    const a = await findObjects(ctx, call.port, args, call.signal);
    return { ...a, json: { ...call.base, ...a.json } };
  },
});

export const waitForObjectTool = defineTool({
  name: 'wait_for_object',
  title: 'Wait for an object',
  description:
    'Look at fresh world snapshots until find_objects would find something; returns the matches and the snapshot.' +
    needs,
  input: waitForObjectInput,
  effect: { readOnly: true },
  async handler(args, ctx, call: BridgeCall) {
    const a = await waitForObject(ctx, call.port, args, call.signal);
    return { ...a, json: { ...call.base, ...a.json } };
  },
});

/** The family, in the order describe_toolset lists it. */
export const WORLD_TOOLS = [findObjectsTool, waitForObjectTool];
