/**
 * Resolving a ref an agent gives against the latest UI snapshot: the node, or a refusal that
 * says why (missing, hidden, disabled) and names the nodes close to what was asked for.
 */
import { usageError } from '../../shared/errors.js';
import { findNode, nearMisses, type UiSnapshot, type Walked } from './tree.js';

/** The node a click or value is for, from the latest snapshot, or a refusal naming what is there instead. */
export function actionable(tool: string, port: number, ui: UiSnapshot, ref: string): Walked {
  const at = `the UI (revision ${ui.revision ?? '?'}, snapshot ${ui.frameSequence ?? '?'})`;
  const w = findNode(ui, ref);
  const label = (n: Walked) => `${n.node.role} ${JSON.stringify(n.node.name)} [ref=${n.node.id}]`;
  if (!w) {
    const similar = nearMisses(ui, ref);
    throw usageError(
      `${tool}: ${at} has no node '${ref}'; nothing was sent. ` +
        (similar.length ? `Similar: ${similar.join('; ')}. ` : '') +
        'Take a snapshot to see the refs there are.',
      { port, ref, similar },
    );
  }
  if (w.hidden) {
    const similar = nearMisses(ui, w.node.name || ref).filter((s) => !s.includes(`[ref=${ref}]`));
    throw usageError(
      `${tool}: ${label(w)} is hidden in ${at}; nothing was sent. ` +
        (similar.length ? `Similar: ${similar.join('; ')}. ` : '') +
        `Wait until it shows: wait_for_node {ref: "${ref}", state: "visible"}.`,
      { port, ref, similar },
    );
  }
  if (w.disabled)
    throw usageError(
      `${tool}: ${label(w)} is disabled in ${at}; nothing was sent. ` +
        `Wait until it is enabled: wait_for_node {ref: "${ref}", state: "enabled"}.`,
      { port, ref, similar: [] },
    );
  return w;
}
