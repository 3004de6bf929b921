/**
 * Steps that name a UI node by its ref (click, set_value). When a later build's tree has no node
 * of that ref, the step fails as NodeGone, apart from a failed expect's value, naming the nearest
 * nodes by role and name (the bridge's own near misses). Under --update or --update=locators the
 * step is re-bound to the node with the role and name it was recorded with, or to the one
 * candidate there is, and made again; nothing else about the test changes.
 */
import { findNode, nearNodes, nodeLabel, walk, type UiSnapshot, type Walked } from '../../daemon/ui/tree.js';
import type { DoStep } from '../../shared/test-file.js';
import { ToolFailed, type Driver, type Json } from './driver.js';

/** What the runner found when a step's node was not in the tree. */
export interface GoneNode {
  ref: string;
  /** the node's role and name when the step was recorded (older and hand-written tests have none) */
  recorded?: { role: string; name: string };
  /** the nearest nodes now, as `button "Start game" [ref=start-game]`, nearest first */
  nearest: string[];
  /** the node the step re-binds to: the recorded role and name, or the one candidate */
  rebind?: Walked;
}

/** A step whose node is gone: its own failure, never a failed expect. */
export class NodeGone extends Error {
  constructor(readonly gone: GoneNode) {
    super(goneText(gone));
  }
}

/** A re-bound step: what the file then says, and what changed. */
export interface Rebound {
  step: DoStep;
  from: string;
  to: string;
}

const refOf = (s: DoStep) => (typeof s.arguments.ref === 'string' ? s.arguments.ref : undefined);
const recordedText = (g: GoneNode) =>
  g.recorded ? ` (${g.recorded.role} ${JSON.stringify(g.recorded.name)} when recorded)` : '';

export function goneText(g: GoneNode): string {
  const heal = g.rebind
    ? `If the game renamed it on purpose, --update=locators re-binds the step to ${nodeLabel(g.rebind)}; if it should still be there, the game has a bug: report it.`
    : 'No single node takes its place: if the game changed on purpose, edit the step to the ref a snapshot shows; if it should still be there, the game has a bug: report it.';
  return `NodeGone: the UI has no node [ref=${g.ref}]${recordedText(g)}; nothing was sent. ${heal}`;
}

/** The game's UI tree as the bridge's snapshot reads it now, hidden nodes too; undefined when it has none. */
async function readUi(driver: Driver, port: number): Promise<UiSnapshot | undefined> {
  const r = await driver.game(port, 'bridge.snapshot', { includeHidden: true }).catch(() => undefined);
  // the snapshot schema leaves a node's value open; its nodes are the game's, checked by the daemon when read
  return Array.isArray(r?.nodes) ? { ...(r.snapshot as object), nodes: r.nodes as UiSnapshot['nodes'] } : undefined;
}

/** The step's node when the tree lacks it; undefined when the step names none or it is there (another failure). */
export async function goneNode(driver: Driver, port: number, s: DoStep): Promise<GoneNode | undefined> {
  const ref = refOf(s);
  if (!ref) return undefined;
  const ui = await readUi(driver, port);
  if (!ui || findNode(ui, ref)) return undefined;
  const rec = s.node;
  const shown = (w: Walked) => !w.hidden && (!rec || w.node.role === rec.role);
  const same = rec ? walk(ui.nodes).filter((w) => shown(w) && w.node.name === rec.name) : [];
  // near misses of the recorded name first, then of the ref (the bridge's own measure)
  const near = [...(rec ? nearNodes(ui, rec.name, 10) : []), ...nearNodes(ui, ref, 10)].filter(
    (w, i, all) => all.findIndex((x) => x.node.id === w.node.id) === i,
  );
  const candidates = near.filter(shown);
  const rebind = same.length === 1 ? same[0] : !same.length && candidates.length === 1 ? candidates[0] : undefined;
  return { ref, recorded: rec, nearest: near.slice(0, 3).map(nodeLabel), rebind };
}

/**
 * Make a do step's call. A refusal because its node is gone becomes NodeGone; with `heal`, a
 * step that has one node to re-bind to is made again on it (the bridge sent nothing the first
 * time) and comes back as `rebound`.
 */
export async function callStep(
  driver: Driver,
  port: number,
  s: DoStep,
  heal: boolean,
): Promise<{ answer: Json; rebound?: Rebound }> {
  try {
    return { answer: await driver.game(port, s.name, s.arguments) };
  } catch (e) {
    if (!(e instanceof ToolFailed)) throw e;
    const gone = await goneNode(driver, port, s);
    if (!gone) throw e;
    if (!heal || !gone.rebind) throw new NodeGone(gone);
    const { id, role, name } = gone.rebind.node;
    const step: DoStep = { ...s, arguments: { ...s.arguments, ref: id }, node: { role, name } };
    const answer = await driver.game(port, s.name, step.arguments);
    return { answer, rebound: { step, from: `[ref=${gone.ref}]${recordedText(gone)}`, to: nodeLabel(gone.rebind) } };
  }
}
