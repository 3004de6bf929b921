/**
 * The UI tools of the bridge toolset (README.md, "See what is on screen"): snapshot, click
 * (also activate), set_value, wait_for_node. Each reads the game's own `GET /ui` (and
 * `GET /world` for a snapshot of it), names the snapshot it read, and acts only through the
 * reserved `ui.*` commands, refusing before anything is sent what the latest snapshot shows
 * cannot be done.
 */
import { BridgeError, usageError } from '../../shared/errors.js';
import { ProcessWatch } from '../sync/command.js';
import { pollDelay } from '../sync/poll.js';
import { sleep } from '../../shared/sleep.js';
import { actionable } from '../ui/refs.js';
import { filterTree, findNode, idOf, matchesFilter, renderUi, walk, type UiSnapshot, type Walked } from '../ui/tree.js';
import { look, renderLook } from '../ui/world.js';
import { isPlayer, readTree, seenBy } from './tree-read.js';
import { z } from './define.js';
import type { ToolContext } from './context.js';
import { shapeSync, syncCommand } from './sync-answer.js';
import type { ToolAnswer, ToolCallExtra } from './types.js';
import { clickNode, isPageRef, setNodeValue } from '../web/ax-tree.js';
import type { SyncResult } from '../sync/command.js';
import type { Page } from 'playwright-core';

/** A page element acted on as a person would: a real click, a real fill or choice. Done once the browser dispatched it. */
async function browserAct(
  page: Page,
  ref: string,
  command: string,
  args: Record<string, unknown>,
): Promise<SyncResult> {
  try {
    if (command === 'ui.activate') await clickNode(page, ref);
    else await setNodeValue(page, ref, args.value as string | number | boolean);
  } catch (e) {
    throw usageError(`${command === 'ui.activate' ? 'click' : 'set_value'} [ref=${ref}]: ${(e as Error).message}.`);
  }
  const via = command === 'ui.activate' ? 'browser.click' : 'browser.fill';
  return { command: via, applied: true, confirmation: 'browser', polls: 0, events: [] };
}

// ---------------------------------------------------------------- snapshot

export const snapshotInput = z.object({
  tree: z.enum(['ui', 'world', 'both']).optional().describe('Which tree: ui (default), world, or both.'),
  since: z
    .int()
    .min(0)
    .optional()
    .describe('A revision you already have: when the tree is still at it, the answer is one line.'),
  role: z.string().max(60).optional().describe("Only nodes of this role, e.g. 'button' (listed flat)."),
  name: z.string().max(200).optional().describe('Only nodes whose name contains this (case-insensitive, listed flat).'),
  includeHidden: z.boolean().optional().describe('Also list hidden nodes (debug view only). Default false.'),
});

export async function snapshot(
  ctx: ToolContext,
  port: number,
  args: z.output<typeof snapshotInput>,
  signal?: AbortSignal,
): Promise<ToolAnswer> {
  const tree = args.tree ?? 'ui';
  const view = ctx.config.view;
  if (args.since !== undefined && tree === 'both')
    throw usageError("snapshot: 'since' is one tree's revision; give tree 'ui' or 'world' with it.");
  if (args.includeHidden && isPlayer(ctx))
    throw usageError(
      'snapshot: includeHidden is not available in the player view: a player does not see hidden nodes.',
    );
  const [ui, world] = await Promise.all([
    tree === 'world' ? undefined : readTree(ctx, port, 'ui', signal),
    tree === 'ui' ? undefined : readTree(ctx, port, 'world', signal),
  ]);
  const current = ui ?? world!;
  if (args.since !== undefined && current.revision === args.since) {
    const text = `unchanged since ${tree} revision ${args.since} (frame ${current.frameSequence ?? '?'}, epoch ${current.sessionEpoch ?? '?'})`;
    return { json: { view, tree, unchanged: true, snapshot: idOf(current) }, text };
  }
  const json: Record<string, unknown> = { view, tree };
  const texts: string[] = [];
  if (ui) {
    const nodes = filterTree(ui.nodes, { ...args, includeHidden: args.includeHidden === true });
    texts.push(renderUi(ui, nodes));
    json.snapshot = idOf(ui);
    if (ui.screen !== undefined) json.screen = ui.screen;
    json.nodes = nodes;
  }
  if (world) {
    const l = look(world, { limit: 200 }, seenBy(ctx));
    texts.push(renderLook(l));
    if (ui) json.world = { snapshot: l.snapshot, objects: l.matches, total: l.total };
    else Object.assign(json, { snapshot: l.snapshot, objects: l.matches, total: l.total });
  }
  return { json, text: texts.join('\n\n') };
}

// ---------------------------------------------------------------- click / set_value

export const clickInput = z.object({
  ref: z.string().min(1).max(200).describe("The node's ref, as snapshot shows it ([ref=start])."),
});

export const setValueInput = z.object({
  ref: z.string().min(1).max(200).describe("The node's ref, as snapshot shows it ([ref=vol])."),
  value: z
    .union([z.string().max(2000), z.number(), z.boolean()])
    .describe('Text for a text box, a number for a slider, true/false for a checkbox, an option name for a combobox.'),
});

async function act(
  ctx: ToolContext,
  port: number,
  tool: string,
  ref: string,
  command: string,
  cmdArgs: Record<string, unknown>,
  extra: ToolCallExtra,
  check?: (w: Walked, ui: UiSnapshot) => void,
): Promise<ToolAnswer> {
  const before = await readTree(ctx, port, 'ui', extra.signal);
  const w = actionable(tool, port, before, ref);
  check?.(w, before);
  const web = isPageRef(ref) ? ctx.launcher.webGame(port) : undefined;
  const r = web
    ? await browserAct(web.browser.page, ref, command, cmdArgs)
    : await syncCommand(ctx, port, command, cmdArgs, extra);
  const after = await readTree(ctx, port, 'ui', extra.signal);
  const node = findNode(after, ref)?.node;
  return {
    json: {
      view: ctx.config.view,
      ref,
      ...shapeSync(r),
      snapshot: idOf(after),
      checkedAt: idOf(before),
      node: node ? { ...node, children: undefined } : null,
    },
  };
}

export function click(
  ctx: ToolContext,
  port: number,
  args: z.output<typeof clickInput>,
  extra: ToolCallExtra,
  tool = 'click',
): Promise<ToolAnswer> {
  return act(ctx, port, tool, args.ref, 'ui.activate', { id: args.ref }, extra);
}

export function setValue(
  ctx: ToolContext,
  port: number,
  args: z.output<typeof setValueInput>,
  extra: ToolCallExtra,
): Promise<ToolAnswer> {
  return act(ctx, port, 'set_value', args.ref, 'ui.setValue', { id: args.ref, value: args.value }, extra, (w, ui) => {
    const { min, max, name } = w.node;
    if (min === undefined && max === undefined) return;
    const v = typeof args.value === 'number' ? args.value : Number(args.value);
    if (!Number.isFinite(v) || (min !== undefined && v < min) || (max !== undefined && v > max))
      throw usageError(
        `set_value: ${JSON.stringify(name)} [ref=${w.node.id}] takes ${min ?? '-∞'} to ${max ?? '∞'} in the UI (revision ${ui.revision ?? '?'}); ` +
          `${JSON.stringify(args.value)} is out of range, so nothing was sent. Give a value in range.`,
        { port, ref: w.node.id, similar: [] },
      );
  });
}

// ---------------------------------------------------------------- wait_for_node

export const NODE_STATES = ['present', 'visible', 'hidden', 'enabled', 'gone'] as const;

export const waitForNodeInput = z.object({
  ref: z.string().min(1).max(200).optional().describe('The node by its ref.'),
  role: z.string().max(60).optional().describe('Or by role (with name, or alone).'),
  name: z.string().max(200).optional().describe('Or by a part of its name (case-insensitive).'),
  state: z
    .enum(NODE_STATES)
    .describe(
      'present: in the tree; visible: in it and shown; hidden: hidden or absent; enabled: shown and enabled; gone: absent.',
    ),
  timeoutMs: z
    .int()
    .min(0)
    .max(600000)
    .optional()
    .describe("Give up after this long. Default: the bridge's --timeout."),
});

type NodeQuery = z.output<typeof waitForNodeInput>;

function candidates(ui: UiSnapshot, q: NodeQuery, player: boolean): Walked[] {
  return walk(ui.nodes).filter(
    (w) => (q.ref === undefined || w.node.id === q.ref) && matchesFilter(w, q) && (!player || !w.hidden),
  );
}

function holds(found: Walked[], state: NodeQuery['state']): Walked | null | undefined {
  switch (state) {
    case 'present':
      return found[0];
    case 'visible':
      return found.find((w) => !w.hidden);
    case 'enabled':
      return found.find((w) => !w.hidden && !w.disabled);
    case 'hidden':
      return found.length === 0 ? null : found.every((w) => w.hidden) ? found[0] : undefined;
    case 'gone':
      return found.length === 0 ? null : undefined;
  }
}

export async function waitForNode(
  ctx: ToolContext,
  port: number,
  q: NodeQuery,
  signal?: AbortSignal,
): Promise<ToolAnswer> {
  if (q.ref === undefined && q.role === undefined && q.name === undefined)
    throw usageError('wait_for_node needs ref, or role and/or name, to say which node.');
  const timeoutMs = q.timeoutMs ?? ctx.config.timeoutMs;
  const what = `wait_for_node ${q.ref ? `[ref=${q.ref}]` : [q.role, q.name && JSON.stringify(q.name)].filter(Boolean).join(' ')} ${q.state}`;
  const started = Date.now();
  const watch = new ProcessWatch(port, what, ctx.generation(port));
  let last: UiSnapshot | undefined;
  let seen: string = 'no snapshot read';
  for (let attempt = 0; ; attempt++) {
    const ui = await readTree(ctx, port, 'ui', signal);
    watch.check(ui.frameSequence);
    // a new publication each time: the same frameSequence again says nothing new
    if (!last || ui.frameSequence === undefined || ui.frameSequence !== last.frameSequence) {
      last = ui;
      const found = candidates(ui, q, isPlayer(ctx));
      const hit = holds(found, q.state);
      if (hit !== undefined)
        return {
          json: {
            view: ctx.config.view,
            matched: true,
            state: q.state,
            node: hit ? { ...hit.node, children: undefined } : null,
            elapsedMs: Date.now() - started,
            snapshot: idOf(ui),
          },
        };
      seen = found.length
        ? `${found.length} node(s) like it, ${found[0].hidden ? 'hidden' : found[0].disabled ? 'disabled' : 'visible'} (first: [ref=${found[0].node.id}])`
        : 'no such node';
    }
    const remaining = timeoutMs - (Date.now() - started);
    if (remaining <= 0)
      throw new BridgeError(
        {
          kind: 'CommandTimeout',
          port,
          timeoutMs,
          path: what,
          lastValue: seen,
          ...(last?.frameSequence !== undefined ? { frame: last.frameSequence } : {}),
        },
        `${what} did not hold within ${timeoutMs}ms on port ${port}; last seen in the UI (revision ${last?.revision ?? '?'}, frame ${last?.frameSequence ?? '?'}): ${seen}. ` +
          'Take a snapshot to see what is there, or raise timeoutMs.',
      );
    if (signal?.aborted) throw usageError('wait_for_node was cancelled.');
    await sleep(Math.min(pollDelay(attempt + 2), remaining), signal);
  }
}
