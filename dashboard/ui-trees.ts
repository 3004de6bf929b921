/**
 * Each live game's UI tree beside its screenshot, as the snapshot tool renders it (text with
 * refs), collapsed by default: read every few seconds only while it is open and the page is
 * visible, and only from games that have one (a 404 hides it until the process changes).
 */
import type { InstanceView } from '../daemon/dashboard/view.js';
import { h } from './dom.js';
import { fresh, PolledPanels, type Polled } from './polled.js';

interface Tree extends Polled {
  details: HTMLDetailsElement;
  pre: HTMLElement;
  summary: HTMLElement;
  /** the revision of the text in `pre` */
  revision?: number;
}

/** The summary names the revision of the text it shows, and only while that text is shown. */
const label = (t: Tree) =>
  t.details.open && t.revision !== undefined ? `UI tree · revision ${t.revision}` : 'UI tree';

export class UiTrees extends PolledPanels<Tree> {
  constructor() {
    super((port) => `/dashboard/api/ui?port=${port}`, [404]);
  }

  protected create(media: HTMLElement, v: InstanceView): Tree {
    const pre = h('pre', { tabindex: 0 });
    const summary = h('summary', {}, 'UI tree');
    const details = h('details', { class: 'ui-tree', hidden: true }, summary, pre) as HTMLDetailsElement;
    const t: Tree = { details, pre, summary, ...fresh(v) };
    // A closed tree is not read again, so its summary names no revision it could no longer vouch for.
    details.addEventListener('toggle', () => {
      if (details.open) t.last = 0;
      summary.textContent = label(t);
    });
    media.append(details);
    return t;
  }

  protected placed(_media: HTMLElement, t: Tree): void {
    t.details.hidden = t.supported === false || !t.live;
  }

  /** Closed: asked once, to know whether to show it at all. */
  protected wanted(t: Tree): boolean {
    return t.details.open || t.supported === null;
  }

  protected hide(t: Tree): void {
    t.details.hidden = true;
  }

  protected async show(t: Tree, res: Response): Promise<void> {
    const body = (await res.json()) as { text?: string; revision?: number };
    t.supported = true;
    t.details.hidden = false;
    t.pre.textContent = body.text ?? '';
    t.revision = body.revision;
    t.summary.textContent = label(t);
  }
}
