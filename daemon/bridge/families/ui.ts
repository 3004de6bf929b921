/**
 * The UI tools of the bridge toolset (docs/TOOLS.md, "Seeing what is on screen"): snapshot, click
 * (also activate), set_value, wait_for_node. Each reads the game's own `GET /ui` (and
 * `GET /world` for a snapshot of it, or a page's own tree), names the snapshot it read, and acts
 * only through the reserved `ui.*` commands (ui-act.ts). Needs the game's "ui" capability, or a
 * page this daemon opened.
 */
import { usageError } from '../../../shared/errors.js';
import { filterTree, idOf, matchesFilter, renderUi, walk, type UiSnapshot, type Walked } from '../../ui/tree.js';
import { look, renderLook } from '../../ui/world.js';
import { isPlayer, readTree, seenBy, waitOnTree } from '../trees.js';
import { z } from '../../tool-framework/define.js';
import { treeWaitTimeout } from '../args.js';
import { bridgeTool, type BridgeFamily } from '../declare.js';
import { clickAnswer, setValueAnswer, snapshotAnswer, waitForNodeAnswer } from '../../../shared/answers/ui.js';
import type { ToolContext } from '../../tool-framework/context.js';
import type { ToolAnswer } from '../../tool-framework/types.js';
import { click, clickInput, setValue, setValueInput } from '../ui-act.js';

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
    const text = `unchanged since ${tree} revision ${args.since} (snapshot ${current.frameSequence ?? '?'}, epoch ${current.sessionEpoch ?? '?'})`;
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
  timeoutMs: treeWaitTimeout(),
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
  let last: UiSnapshot | undefined;
  let seen: string = 'no snapshot read';
  const { found, elapsedMs } = await waitOnTree(ctx, port, signal, {
    tool: 'wait_for_node',
    what,
    timeoutMs,
    read: () => readTree(ctx, port, 'ui', signal),
    test(ui: UiSnapshot) {
      // a new publication each time: the same frameSequence again says nothing new
      if (last && ui.frameSequence !== undefined && ui.frameSequence === last.frameSequence) return undefined;
      last = ui;
      const found = candidates(ui, q, isPlayer(ctx));
      const hit = holds(found, q.state);
      if (hit !== undefined) return { hit, ui };
      seen = found.length
        ? `${found.length} node(s) like it, ${found[0].hidden ? 'hidden' : found[0].disabled ? 'disabled' : 'visible'} (first: [ref=${found[0].node.id}])`
        : 'no such node';
      return undefined;
    },
    timedOut: () => ({
      lastValue: seen,
      message:
        `${what} did not hold within ${timeoutMs}ms on port ${port}; last seen in the UI (revision ${last?.revision ?? '?'}, snapshot ${last?.frameSequence ?? '?'}): ${seen}. ` +
        'Take a snapshot to see what is there, or raise timeoutMs.',
    }),
  });
  return {
    json: {
      view: ctx.config.view,
      matched: true,
      state: q.state,
      node: found.hit ? { ...found.hit.node, children: undefined } : null,
      elapsedMs,
      snapshot: idOf(found.ui),
    },
  };
}

export const snapshotTool = bridgeTool({
  name: 'snapshot',
  output: snapshotAnswer,
  title: 'See what is on screen',
  description:
    'What is on screen as a compact text with refs (plus the same as JSON): the UI tree, the world tree, or both. Hidden nodes are left out unless asked for; `since` a revision you have answers one line when nothing changed.',
  needs: 'ui',
  // the tree it reads decides: the world tree alone needs no UI tree
  needsOf: ({ tree }) => (tree === 'world' ? ['world'] : tree === 'both' ? ['ui', 'world'] : ['ui']),
  input: snapshotInput,
  effect: { readOnly: true },
  player: true,
  recorded: false,
  handler: (args, ctx, call) => snapshot(ctx, call.port, args, call.signal),
});

const clickTool = (name: 'click' | 'activate') =>
  bridgeTool({
    name,
    output: clickAnswer,
    title: 'Press a UI node',
    description:
      'Press a UI node as a player would (ui.activate; on a page, a real mouse click at its box), by the ref snapshot showed. Refused before anything is sent when the latest snapshot lacks it, hides it or disables it (naming similar nodes); otherwise confirmed, with the state and the ui revision after.' +
      (name === 'activate' ? ' The same as click.' : ''),
    needs: 'ui',
    input: clickInput,
    effect: { readOnly: false },
    player: true,
    recorded: 'do',
    handler: (args, ctx, call) => click(ctx, call.port, args, call, name),
  });

export const setValueTool = bridgeTool({
  name: 'set_value',
  output: setValueAnswer,
  title: "Set a UI node's value",
  description:
    "Set a UI node's value (ui.setValue; on a page, a real fill, choice or check): a text box's text, a slider's number (out of its range is refused), a checkbox's true/false, a combobox's option. Refused like click before anything is sent.",
  needs: 'ui',
  input: setValueInput,
  effect: { readOnly: false },
  player: true,
  recorded: 'do',
  handler: (args, ctx, call) => setValue(ctx, call.port, args, call),
});

export const waitForNodeTool = bridgeTool({
  name: 'wait_for_node',
  output: waitForNodeAnswer,
  title: 'Wait for a UI node',
  description:
    'Read fresh UI snapshots until a node (by ref, or by role and/or name) is present, visible, hidden, enabled or gone; returns the node and the snapshot it held in.',
  needs: 'ui',
  input: waitForNodeInput,
  effect: { readOnly: true },
  player: true,
  recorded: 'check',
  handler: (args, ctx, call) => waitForNode(ctx, call.port, args, call.signal),
});

/** The family (index.ts): its tools in describe_toolset's order, and its clause of the description. */
export const uiFamily: BridgeFamily = {
  name: 'ui',
  clause:
    'and, on games that publish a UI tree ("ui") or a page this bridge opened, see what is on screen and act on it by reference (snapshot, click, set_value, wait_for_node)',
  tools: [snapshotTool, clickTool('click'), clickTool('activate'), setValueTool, waitForNodeTool],
};
