/**
 * A browser page's UI tree without game code: Chromium's accessibility tree (CDP
 * Accessibility.getFullAXTree) in the UI tree's node shape (docs/CONTRACT.md), with each
 * node's box from its layout, and the real input that acts on a node: a mouse click at the
 * centre of its box, a fill of a text box, a choice in a select. Refs are `dom-<backendDOMNodeId>`,
 * Chromium's id of the element, which stays the same for as long as the element lives; generated
 * content (CSS `content:`) is `ax-<the element around it>.<its place there>`, read-only.
 */
import type { CDPSession, Page } from 'playwright-core';
import type { UiNodeFields } from '../../shared/ui-node.js';
import { pageLayout, roundedBox, type PageLayout } from './layout-boxes.js';

/** The UI tree's node fields (the daemon's reader checks them again); a page's node is enabled unless it says not. */
export interface PageNode extends UiNodeFields<PageNode> {
  enabled?: false;
}

interface AxValue {
  value?: unknown;
}
interface AxNode {
  nodeId: string;
  ignored?: boolean;
  role?: AxValue;
  name?: AxValue;
  value?: AxValue;
  properties?: Array<{ name: string; value: AxValue }>;
  childIds?: string[];
  backendDOMNodeId?: number;
}

export const PAGE_REF_PREFIX = 'dom-';
/** A page tree bigger than this is cut: no answer could carry it anyway. */
const MAX_PAGE_NODES = 1500;

/** Roles that only group their children: kept only when they have a name. */
const WRAPPERS = new Set([
  'generic',
  'none',
  'GenericContainer',
  'presentation',
  'Section',
  'LayoutTable',
  'paragraph',
  'LabelText',
  'MenuListPopup',
  'strong',
  'emphasis',
  'mark',
  'code',
  'time',
  'subscript',
  'superscript',
]);
/** A label's text beside the control it names says nothing the control's own name does not. */
function withoutEchoes(nodes: PageNode[]): PageNode[] {
  const named = new Set(nodes.filter((n) => n.role !== 'text').map((n) => n.name));
  return nodes.filter((n) => n.role !== 'text' || !named.has(n.name));
}

const SKIP = new Set(['InlineTextBox', 'LineBreak', 'ListMarker']);
const ROLE_NAMES: Record<string, string> = {
  StaticText: 'text',
  RootWebArea: 'document',
  Canvas: 'canvas',
  image: 'image',
  img: 'image',
};
const NUMERIC = new Set(['slider', 'spinbutton', 'progressbar', 'scrollbar', 'meter']);

const str = (v: AxValue | undefined): string => (v?.value === undefined || v.value === null ? '' : String(v.value));

/** One CDP session per page, kept (each new one costs a round trip). */
const sessions = new WeakMap<Page, Promise<CDPSession>>();
export function cdpOf(page: Page): Promise<CDPSession> {
  let s = sessions.get(page);
  if (!s) {
    s = page.context().newCDPSession(page);
    sessions.set(page, s);
    s.catch(() => sessions.delete(page));
  }
  return s;
}

/** The page's accessibility tree as UI nodes, boxes included. */
export async function pageTree(page: Page): Promise<PageNode[]> {
  return (await pageLook(page)).tree;
}

/**
 * The page's accessibility tree as UI nodes, boxes included, and the document's title. The
 * tree and the boxes are asked at once (a page busy drawing answers each request only between
 * its frames); a box the layout snapshot cannot give exactly is asked of getBoxModel after.
 */
export async function pageLook(page: Page): Promise<{ tree: PageNode[]; title?: string }> {
  const cdp = await cdpOf(page);
  const [{ nodes }, layout] = await Promise.all([
    cdp.send('Accessibility.getFullAXTree') as unknown as Promise<{ nodes: AxNode[] }>,
    pageLayout(cdp).catch((): PageLayout => ({ boxOf: () => undefined })),
  ]);
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  const boxes: Array<{ node: PageNode; backend: number }> = [];
  let budget = MAX_PAGE_NODES;

  // Generated content (a CSS ::before or ::after) has no element of its own, and Chromium numbers
  // its accessibility node afresh whenever its element changes. Its ref is the nearest element
  // around it and its place among that element's generated nodes, so it stays the same while that
  // element lives and keeps as many generated nodes before it.
  const generated = new Map<number, number>();
  const generatedRef = (anchor: number): string => {
    const k = (generated.get(anchor) ?? 0) + 1;
    generated.set(anchor, k);
    return `ax-${anchor}.${k}`;
  };
  const convert = (ax: AxNode, parentName: string, anchor: number): PageNode[] => {
    if (budget <= 0) return [];
    const within = ax.backendDOMNodeId ?? anchor;
    const kids = () =>
      withoutEchoes((ax.childIds ?? []).flatMap((id) => convertId(id, str(ax.name) || parentName, within)));
    const role = str(ax.role);
    if (SKIP.has(role)) return [];
    // A canvas is the game's area, one node whether or not the page named it: the agent aims at
    // its box. Its children are the text a browser without canvas would show, not the game.
    if (role === 'Canvas' && ax.ignored) return [];
    if (ax.ignored || role === 'RootWebArea') return kids();
    const name = str(ax.name).trim();
    if (WRAPPERS.has(role) && !name) return kids();
    // the text inside a button or a link is its name already
    if (role === 'StaticText' && (!name || name === parentName.trim())) return [];
    budget--;
    const node: PageNode = {
      // Generated content has no element behind it, and a page may replace a text node on every
      // frame with the same words (a HUD's score): both are refs to read, named after the element
      // around them, so they stay while it lives.
      id:
        ax.backendDOMNodeId !== undefined && role !== 'StaticText'
          ? `${PAGE_REF_PREFIX}${ax.backendDOMNodeId}`
          : generatedRef(anchor),
      role: ROLE_NAMES[role] ?? role,
      name: name.slice(0, 500),
    };
    const value = str(ax.value);
    for (const p of ax.properties ?? []) {
      const v = p.value?.value;
      if (p.name === 'disabled' && v === true) node.enabled = false;
      else if (p.name === 'checked') node.checked = v === true || v === 'true';
      else if (p.name === 'selected' && v === true) node.selected = true;
      else if (p.name === 'focused' && v === true) node.focused = true;
      else if (p.name === 'valuemin' && typeof v === 'number') node.min = v;
      else if (p.name === 'valuemax' && typeof v === 'number') node.max = v;
    }
    if (value !== '') node.value = NUMERIC.has(node.role) && Number.isFinite(Number(value)) ? Number(value) : value;
    // text has the box of the element around it: a text node the page replaces is not laid out yet
    const boxed = role === 'StaticText' ? anchor || undefined : ax.backendDOMNodeId;
    if (boxed !== undefined) boxes.push({ node, backend: boxed });
    const children = role === 'Canvas' ? [] : kids();
    if (children.length) node.children = children;
    return [node];
  };
  const convertId = (id: string, parentName: string, anchor: number): PageNode[] => {
    const ax = byId.get(id);
    return ax ? convert(ax, parentName, anchor) : [];
  };

  const root = nodes[0];
  const tree = root ? convert(root, '', 0) : [];
  await Promise.all(
    boxes.map(async ({ node, backend }) => {
      const r = layout.boxOf(backend) ?? (await boxOf(cdp, backend));
      if (r) node.rect = r;
    }),
  );
  return { tree, title: layout.title };
}

/** The element's border box in CSS pixels of the viewport (the screenshot's, at a device scale of 1). */
async function boxOf(cdp: CDPSession, backendNodeId: number): Promise<number[] | undefined> {
  try {
    const { model } = (await cdp.send('DOM.getBoxModel', { backendNodeId })) as { model: { border: number[] } };
    const xs = [model.border[0], model.border[2], model.border[4], model.border[6]];
    const ys = [model.border[1], model.border[3], model.border[5], model.border[7]];
    return roundedBox(Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys));
  } catch {
    return undefined; // not laid out (display: none, a text run)
  }
}

export const isPageRef = (ref: string): boolean => /^dom-\d+$/.test(ref);
const backendOf = (ref: string) => Number(ref.slice(PAGE_REF_PREFIX.length));

/** A real click: the element scrolled into view, the mouse pressed and released at the centre of its box. */
export async function clickNode(page: Page, ref: string): Promise<void> {
  const cdp = await cdpOf(page);
  const backendNodeId = backendOf(ref);
  await cdp.send('DOM.scrollIntoViewIfNeeded', { backendNodeId }).catch(() => undefined);
  const box = await boxOf(cdp, backendNodeId);
  if (!box) throw new Error(`the element [ref=${ref}] has no box on the page to click`);
  await page.mouse.click(box[0] + box[2] / 2, box[1] + box[3] / 2);
}

/**
 * A real value: a text box focused, its text selected and replaced by typing; a select's
 * option chosen by its label or value; a checkbox clicked when it is not already as asked;
 * a range input set and told (input and change events), as a drag would.
 */
export async function setNodeValue(page: Page, ref: string, value: string | number | boolean): Promise<void> {
  const cdp = await cdpOf(page);
  const { object } = (await cdp.send('DOM.resolveNode', { backendNodeId: backendOf(ref) })) as {
    object: { objectId: string };
  };
  const call = async (fn: string, ...args: unknown[]) =>
    (
      (await cdp.send('Runtime.callFunctionOn', {
        objectId: object.objectId,
        functionDeclaration: fn,
        arguments: args.map((a) => ({ value: a })),
        returnByValue: true,
      })) as { result: { value?: unknown } }
    ).result.value;
  const kind = (await call(
    'function () { return this.tagName === "SELECT" ? "select" : this.type === "checkbox" || this.type === "radio" ? "check" : this.type === "range" ? "range" : "text"; }',
  )) as string;
  if (kind === 'check') {
    const want = value === true || value === 'true';
    if ((await call('function () { return this.checked; }')) !== want) await clickNode(page, ref);
    return;
  }
  if (kind === 'select' || kind === 'range') {
    const fn =
      kind === 'select'
        ? 'function (v) { const o = [...this.options].find((o) => o.label === v || o.value === v); if (!o) return "no option " + JSON.stringify(v) + "; options: " + [...this.options].map((o) => o.label).join(", "); this.value = o.value; }'
        : 'function (v) { this.value = v; }';
    const problem = await call(
      `function (v) { const r = (${fn}).call(this, v); if (r) return r; this.dispatchEvent(new Event("input", { bubbles: true })); this.dispatchEvent(new Event("change", { bubbles: true })); }`,
      String(value),
    );
    if (typeof problem === 'string') throw new Error(problem);
    return;
  }
  await call('function () { this.focus(); if (typeof this.select === "function") this.select(); }');
  const text = String(value);
  if (text) await page.keyboard.insertText(text);
  else await page.keyboard.press('Delete');
}
