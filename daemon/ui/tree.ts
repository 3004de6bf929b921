/**
 * The UI tree a game publishes (`GET /ui`, docs/CONTRACT.md): reading it forgivingly but
 * bounded, walking it with what each node inherits (a node inside a hidden group is hidden),
 * rendering it as the compact text an agent reads with refs, and finding the nodes whose id or
 * name is close to a ref that is not there.
 */
import { z } from 'zod/v4';
import { notAGameSurface } from '../../shared/errors.js';
import type { UiNodeFields } from '../../shared/ui-node.js';
import { editDistance } from '../../shared/near.js';

/** A tree bigger than this is cut (its rendering would not fit any answer anyway). */
export const MAX_NODES = 2000;
export const MAX_DEPTH = 32;

const scalar = z.union([z.string().max(2000), z.number(), z.boolean()]);
/** A field a game may leave out or get wrong: read as absent, rather than failing the whole snapshot. */
export const forgiving = <T extends z.ZodType>(t: T) => t.optional().catch(undefined);

/** A node as read: any scalar value a game sends is kept. */
export type UiNode = UiNodeFields<UiNode, string | number | boolean>;

const NodeShape: z.ZodType<UiNode> = z.lazy(() =>
  z.object({
    id: z.union([z.string().min(1).max(200), z.number().transform(String)]),
    role: z.string().max(60).catch('generic'),
    name: z.string().max(500).catch(''),
    value: forgiving(scalar),
    min: forgiving(z.number()),
    max: forgiving(z.number()),
    checked: forgiving(z.boolean()),
    selected: forgiving(z.boolean()),
    focused: forgiving(z.boolean()),
    visible: forgiving(z.boolean()),
    enabled: forgiving(z.boolean()),
    rect: forgiving(z.array(z.number()).length(4)),
    children: forgiving(z.array(NodeShape)),
  }),
);

/** Which publication a reading came from: every answer names it. */
export interface SnapshotId {
  sessionEpoch?: number;
  frameSequence?: number;
  revision?: number;
}

export interface UiSnapshot extends SnapshotId {
  /** the game's frame when the tree was read (a page this daemon opened reads both at once) */
  frame?: number;
  screen?: string;
  nodes: UiNode[];
}

const counter = forgiving(z.number().int().nonnegative());
/** The counters every tree's publication carries (SnapshotId), as a snapshot's shape reads them. */
export const snapshotCounters = { sessionEpoch: counter, frameSequence: counter, revision: counter };

/** A tree's body read by its snapshot shape, or NotAGameSurface naming what is wrong with it. */
export function readSnapshot<S extends z.ZodType>(
  port: number,
  tree: 'ui' | 'world',
  shape: S,
  json: unknown,
): z.output<S> {
  const r = shape.safeParse(json);
  if (!r.success)
    throw notAGameSurface(
      port,
      `GET /${tree} is not a ${tree === 'ui' ? 'UI' : tree} snapshot (${r.error.issues[0]?.path.join('.') || 'top level'}: ${r.error.issues[0]?.message})`,
    );
  return r.data;
}

const UiShape = z.object({
  ...snapshotCounters,
  screen: forgiving(z.string().max(200)),
  nodes: z.array(z.unknown()).max(MAX_NODES),
});

/** A node that does not read is dropped with its children; one without an id cannot be referred to at all. */
function readNodes(raw: unknown[], depth: number, budget: { left: number }): UiNode[] {
  const out: UiNode[] = [];
  for (const item of raw) {
    if (budget.left <= 0) break;
    if (!item || typeof item !== 'object') continue;
    const { children, ...rest } = item as { children?: unknown };
    const r = NodeShape.safeParse({ ...rest, children: undefined });
    if (!r.success) continue;
    budget.left--;
    const node: UiNode = { ...r.data };
    delete node.children;
    if (Array.isArray(children) && children.length && depth < MAX_DEPTH) {
      const kids = readNodes(children, depth + 1, budget);
      if (kids.length) node.children = kids;
    }
    out.push(node);
  }
  return out;
}

/** `GET /ui`'s body → a snapshot, or NotAGameSurface naming what is wrong with it. */
export function readUi(port: number, json: unknown): UiSnapshot {
  const { nodes, ...ids } = readSnapshot(port, 'ui', UiShape, json);
  return { ...clean(ids), nodes: readNodes(nodes, 0, { left: MAX_NODES }) };
}

/** The counters alone, without the keys a game left out. */
export function idOf(s: SnapshotId): SnapshotId {
  return clean({ sessionEpoch: s.sessionEpoch, frameSequence: s.frameSequence, revision: s.revision });
}

function clean<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** One node as walked: its depth, and what it inherits from its ancestors. */
export interface Walked {
  node: UiNode;
  depth: number;
  hidden: boolean;
  disabled: boolean;
}

export function walk(nodes: UiNode[]): Walked[] {
  const out: Walked[] = [];
  const visit = (list: UiNode[], depth: number, hidden: boolean, disabled: boolean) => {
    for (const node of list) {
      const h = hidden || node.visible === false;
      const d = disabled || node.enabled === false;
      out.push({ node, depth, hidden: h, disabled: d });
      if (node.children) visit(node.children, depth + 1, h, d);
    }
  };
  visit(nodes, 0, false, false);
  return out;
}

export function findNode(snapshot: UiSnapshot, ref: string): Walked | undefined {
  return walk(snapshot.nodes).find((w) => w.node.id === ref);
}

/** What a snapshot answer is filtered by: a role, a name (case-insensitive, part of it), hidden nodes. */
export interface UiFilter {
  role?: string;
  name?: string;
  includeHidden?: boolean;
}

export function matchesFilter(w: Walked, f: UiFilter): boolean {
  if (f.role && w.node.role !== f.role) return false;
  if (f.name && !w.node.name.toLowerCase().includes(f.name.toLowerCase())) return false;
  return true;
}

/**
 * The tree as an answer shows it: hidden nodes (and what is inside them) left out unless asked
 * for; with a role or name, only the matching nodes, flat.
 */
export function filterTree(nodes: UiNode[], f: UiFilter): UiNode[] {
  if (f.role || f.name)
    return walk(nodes)
      .filter((w) => (f.includeHidden || !w.hidden) && matchesFilter(w, f))
      .map((w) => {
        const { children: _children, ...flat } = w.node;
        return flat;
      });
  const prune = (list: UiNode[]): UiNode[] =>
    list
      .filter((n) => f.includeHidden || n.visible !== false)
      .map((n) => (n.children ? { ...n, children: prune(n.children) } : n));
  return prune(nodes);
}

const quote = (s: string) => JSON.stringify(s.length > 120 ? s.slice(0, 117) + '...' : s);

function valueText(v: UiNode['value']): string {
  if (typeof v === 'string') return quote(v);
  return String(v);
}

/** One node's line: `- button "Start" [ref=start] disabled`. */
function line(n: UiNode, depth: number): string {
  const parts = [`${'  '.repeat(depth)}- ${n.role}${n.name ? ' ' + quote(n.name) : ''} [ref=${n.id}]`];
  if (n.visible === false) parts.push('hidden');
  if (n.enabled === false) parts.push('disabled');
  if (n.checked !== undefined) parts.push(n.checked ? 'checked' : 'unchecked');
  if (n.selected) parts.push('selected');
  if (n.focused) parts.push('focused');
  if (n.value !== undefined && n.value !== '') parts.push(`value=${valueText(n.value)}`);
  // a canvas says nothing of what is drawn in it: where it is, is what the agent aims the pointer at
  if (n.role === 'canvas' && n.rect) parts.push(`box=[${n.rect.join(',')}]`);
  return parts.join(' ');
}

/**
 * The header line: `MenuScreen · ui revision 12 · snapshot 3456 · epoch 2`. The snapshot number is
 * the kit's count of published trees (`frameSequence`), not the game's frame, so it is not called one;
 * a page's look says the game's frame too (`· frame 650`).
 */
export function header(tree: 'ui' | 'world', s: SnapshotId & { screen?: string; frame?: number }): string {
  const parts: string[] = [];
  if (s.screen) parts.push(s.screen);
  parts.push(`${tree} revision ${s.revision ?? '?'}`);
  if (s.frameSequence !== undefined) parts.push(`snapshot ${s.frameSequence}`);
  if (s.frame !== undefined) parts.push(`frame ${s.frame}`);
  if (s.sessionEpoch !== undefined) parts.push(`epoch ${s.sessionEpoch}`);
  return parts.join(' · ');
}

/** The compact text rendering of (already filtered) nodes, under its header. */
export function renderUi(s: UiSnapshot, nodes: UiNode[]): string {
  const lines = [header('ui', s)];
  const visit = (list: UiNode[], depth: number) => {
    for (const n of list) {
      lines.push(line(n, depth));
      if (n.children) visit(n.children, depth + 1);
    }
  };
  visit(nodes, 0);
  if (!nodes.length) lines.push('(no nodes)');
  return lines.join('\n');
}

/** How far `ref` is from a node: its id or its name, whichever is closer (lower is closer; Infinity: not similar). */
function distanceTo(ref: string, n: UiNode): number {
  const r = ref.toLowerCase();
  let best = Infinity;
  for (const text of [n.id.toLowerCase(), n.name.toLowerCase()]) {
    if (!text) continue;
    if (text === r) return 0;
    if (text.includes(r) || r.includes(text)) best = Math.min(best, 1);
    const d = editDistance(r, text);
    if (d <= Math.max(2, Math.floor(Math.max(r.length, text.length) / 3))) best = Math.min(best, d);
  }
  return best;
}

/** Up to `max` nodes whose id or name is close to `ref`, closest first. */
export function nearNodes(s: UiSnapshot, ref: string, max = 3): Walked[] {
  return walk(s.nodes)
    .map((w) => ({ w, d: distanceTo(ref, w.node) }))
    .filter((x) => Number.isFinite(x.d))
    .sort((a, b) => a.d - b.d)
    .slice(0, max)
    .map(({ w }) => w);
}

/** A node as a refusal names it: `button "Start" [ref=start]`. */
export function nodeLabel(w: Walked): string {
  return line(w.node, 0).slice(2) + (w.hidden && w.node.visible !== false ? ' (inside a hidden node)' : '');
}

/** Up to `max` nodes whose id or name is close to `ref`, closest first, as `button "Start" [ref=start]`. */
export function nearMisses(s: UiSnapshot, ref: string, max = 3): string[] {
  return nearNodes(s, ref, max).map(nodeLabel);
}
