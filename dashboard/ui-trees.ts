/**
 * Each live game's UI tree beside its screenshot, as the snapshot tool renders it (text with
 * refs), collapsed by default: read every few seconds only while it is open and the page is
 * visible, and only from games that have one (a 404 hides it until the process changes).
 */
import { authFetch } from './auth.js';
import type { InstanceView } from '../daemon/dashboard/view.js';
import { h } from './dom.js';

const EVERY_MS = 2500;

interface Tree {
  details: HTMLDetailsElement;
  pre: HTMLElement;
  summary: HTMLElement;
  pid: number | null;
  supported: boolean | null;
  busy: boolean;
  last: number;
  live: boolean;
}

export class UiTrees {
  private trees = new Map<number, Tree>();

  constructor() {
    setInterval(() => this.refreshAll(), 500);
  }

  /** Put (or keep) the tree of this instance in its card's media row. */
  attach(media: HTMLElement, v: InstanceView): void {
    let t = this.trees.get(v.port);
    if (!t) {
      const pre = h('pre', { tabindex: 0 });
      const summary = h('summary', {}, 'UI tree');
      const details = h('details', { class: 'ui-tree', hidden: true }, summary, pre) as HTMLDetailsElement;
      t = { details, pre, summary, pid: v.pid, supported: null, busy: false, last: 0, live: false };
      details.addEventListener('toggle', () => {
        if (details.open && t) t.last = 0;
      });
      this.trees.set(v.port, t);
      media.append(details);
    }
    if (t.pid !== v.pid) Object.assign(t, { pid: v.pid, supported: null, last: 0 });
    t.live = v.status === 'live' || v.status === 'live-no-manifest';
    t.details.hidden = t.supported === false || !t.live;
  }

  forget(port: number): void {
    this.trees.delete(port);
  }

  private refreshAll(): void {
    if (document.hidden) return;
    const now = Date.now();
    for (const [port, t] of this.trees) {
      if (!t.live || t.busy || t.supported === false || now - t.last < EVERY_MS) continue;
      // closed: asked once, to know whether to show it at all
      if (!t.details.open && t.supported !== null) continue;
      t.busy = true;
      t.last = now;
      void this.fetchOne(port, t).finally(() => (t.busy = false));
    }
  }

  private async fetchOne(port: number, t: Tree): Promise<void> {
    try {
      const res = await authFetch(`/dashboard/api/ui?port=${port}`);
      if (res.status === 404) {
        t.supported = false;
        t.details.hidden = true;
        return;
      }
      if (!res.ok) return;
      const body = (await res.json()) as { text?: string; revision?: number };
      t.supported = true;
      t.details.hidden = false;
      t.pre.textContent = body.text ?? '';
      t.summary.textContent = `UI tree${body.revision !== undefined ? ` · revision ${body.revision}` : ''}`;
    } catch {
      /* the next round tries again */
    }
  }
}
