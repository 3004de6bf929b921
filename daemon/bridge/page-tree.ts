/**
 * The UI tree of a browser game this daemon opened: the page's accessibility tree (web/ax-tree.ts)
 * merged with the nodes its kit publishes for canvas content (their ids kept as refs). The
 * daemon is the publisher here, so it counts the publications and the revisions itself.
 */
import type { Page } from 'playwright-core';
import { pageLook } from '../web/ax-tree.js';
import { readUi, type UiSnapshot } from '../ui/tree.js';

interface Counters {
  last: string;
  revision: number;
  sequence: number;
}
const counters = new WeakMap<Page, Counters>();

/**
 * One look at the page, with the kit's own snapshot (its answer: null when it serves none, or
 * for a page without the kit), and the game's frame at the look (asked at the same time).
 */
export async function pageSnapshot(
  port: number,
  page: Page,
  kitAnswer: Promise<unknown>,
  gameFrame: Promise<number | undefined>,
): Promise<UiSnapshot> {
  // the title comes with the page's layout; asked on its own only when that could not be read
  const [look, kitJson, frame] = await Promise.all([pageLook(page), kitAnswer, gameFrame.catch(() => undefined)]);
  const { tree } = look;
  const title = look.title ?? (await page.title().catch(() => ''));
  // a page without the kit: the carrier's /ui is this same tree, not a kit's
  const fromKit = kitJson !== null && (kitJson as { source?: unknown }).source !== 'browser';
  const kit = fromKit ? readUi(port, kitJson) : undefined;
  const dom = readUi(port, { nodes: tree });
  const nodes = [...dom.nodes, ...(kit?.nodes ?? [])];
  // the kit's screen, else the page's title
  const screen = kit?.screen ?? (title.slice(0, 200) || undefined);
  const c = counters.get(page) ?? { last: '', revision: 0, sequence: 0 };
  counters.set(page, c);
  const content = JSON.stringify({ screen, nodes });
  if (content !== c.last) c.revision++;
  c.last = content;
  c.sequence++;
  return {
    ...(kit?.sessionEpoch !== undefined ? { sessionEpoch: kit.sessionEpoch } : {}),
    frameSequence: c.sequence,
    ...(frame !== undefined ? { frame } : {}),
    revision: c.revision,
    ...(screen !== undefined ? { screen } : {}),
    nodes,
  };
}
