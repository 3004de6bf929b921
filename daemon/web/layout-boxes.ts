/**
 * Every element's box on a page in one look: CDP DOMSnapshot.captureSnapshot, read into the
 * same border boxes DOM.getBoxModel gives one element at a time (CSS pixels of the viewport),
 * plus the document's title. A box the snapshot cannot give exactly as getBoxModel would is
 * marked to be asked of getBoxModel instead: a text run (getBoxModel gives its ink, the
 * snapshot its lines), an element under a transform (the snapshot snaps the transformed box
 * outwards to layout units), an SVG element inside an <svg>, a node the snapshot does not hold
 * (a control's own inner parts).
 */
import type { CDPSession } from 'playwright-core';

/** The box as getBoxModel's border quad gives it, or null: the element has no box (not laid out). */
export type LayoutBox = number[] | null;

export interface PageLayout {
  /** undefined: the snapshot was not taken */
  title?: string;
  /** The box by backendDOMNodeId; undefined: ask getBoxModel. */
  boxOf(backendNodeId: number): LayoutBox | undefined;
}

/** What DOMSnapshot.captureSnapshot answers, the fields read here. */
export interface LayoutSnapshot {
  strings: string[];
  documents: Array<{
    title?: number;
    scrollOffsetX?: number;
    scrollOffsetY?: number;
    nodes: {
      parentIndex?: number[];
      nodeType?: number[];
      nodeName?: number[];
      backendNodeId?: number[];
    };
    layout: { nodeIndex: number[]; bounds: number[][]; styles: number[][] };
  }>;
}

/** Computed styles that move a box off the layout grid; any value but 'none' does. */
const TRANSFORMING = ['transform', 'translate', 'rotate', 'scale', 'offset-path'];
const ELEMENT = 1;
const SHADOW_ROOT = 11;

/** The border box [x, y, width, height] rounded as the UI tree carries it, from its corners. */
export function roundedBox(x: number, y: number, right: number, bottom: number): number[] {
  return [Math.round(x), Math.round(y), Math.round(right - x), Math.round(bottom - y)];
}

/** The page's boxes and title, in one round trip to the page. */
export async function pageLayout(cdp: CDPSession): Promise<PageLayout> {
  const snap = (await cdp.send('DOMSnapshot.captureSnapshot', {
    computedStyles: TRANSFORMING,
  })) as unknown as LayoutSnapshot;
  return readLayout(snap);
}

export function readLayout(snap: LayoutSnapshot): PageLayout {
  const doc = snap.documents[0];
  if (!doc) return { boxOf: () => undefined };
  const str = (i: number | undefined) => (i === undefined || i < 0 ? '' : (snap.strings[i] ?? ''));
  const parent = doc.nodes.parentIndex ?? [];
  const type = doc.nodes.nodeType ?? [];
  const name = doc.nodes.nodeName ?? [];
  const ids = doc.nodes.backendNodeId ?? [];
  const n = ids.length;

  // Nodes come in document order, a parent before its children: each pass below runs forward.
  const layoutOf = new Int32Array(n).fill(-1);
  const moved = new Uint8Array(n);
  doc.layout.nodeIndex.forEach((node, li) => {
    layoutOf[node] = li;
    if ((doc.layout.styles[li] ?? []).some((s) => str(s) !== '' && str(s) !== 'none')) moved[node] = 1;
  });
  // A slotted element is laid out inside its host's shadow tree, which its own ancestors do not show:
  // a host whose shadow tree moves anything moves all it holds.
  const hostMoves = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (!moved[i]) continue;
    for (let a = parent[i] ?? -1; a >= 0; a = parent[a] ?? -1)
      if (type[a] === SHADOW_ROOT && (parent[a] ?? -1) >= 0) hostMoves[parent[a]] = 1;
  }
  // exact: nothing the node is laid out in moves off the grid, and no <svg> holds it (its viewBox may scale it)
  const exact = new Uint8Array(n);
  const inSvg = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = parent[i] ?? -1;
    inSvg[i] = p >= 0 && (inSvg[p] || str(name[p]).toLowerCase() === 'svg') ? 1 : 0;
    exact[i] = (p < 0 || (exact[p] && !hostMoves[p])) && !moved[i] && !inSvg[i] ? 1 : 0;
  }

  const index = new Map<number, number>();
  ids.forEach((id, i) => index.set(id, i));
  const sx = doc.scrollOffsetX ?? 0;
  const sy = doc.scrollOffsetY ?? 0;
  return {
    title: str(doc.title),
    boxOf(backendNodeId: number): LayoutBox | undefined {
      const i = index.get(backendNodeId);
      if (i === undefined || type[i] !== ELEMENT || !exact[i]) return undefined;
      const li = layoutOf[i];
      if (li < 0) return null;
      const [x, y, w, h] = doc.layout.bounds[li];
      return roundedBox(x - sx, y - sy, x - sx + w, y - sy + h);
    },
  };
}
