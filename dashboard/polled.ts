/**
 * What each live game's screenshot and UI tree have in common: one panel per port in its card's
 * media row, asked every few seconds while the page is visible and the game is live, never twice
 * at once, and no more once the game says it serves none, until its process changes.
 */
import { authFetch } from './auth.js';
import type { InstanceView } from '../daemon/dashboard/view.js';

const EVERY_MS = 2500;

/** Where a panel stands with its game. */
export interface Polled {
  /** the pid it was probed for; a new process is asked again */
  pid: number | null;
  /** whether the game serves it: unknown until its first answer */
  supported: boolean | null;
  busy: boolean;
  last: number;
  live: boolean;
}

/** A new panel's standing: not asked yet, for this instance's process. */
export const fresh = (v: InstanceView): Polled => ({
  pid: v.pid,
  supported: null,
  busy: false,
  last: 0,
  live: false,
});

export abstract class PolledPanels<P extends Polled> {
  protected readonly panels = new Map<number, P>();

  /**
   * @param url the endpoint asked for the game on a port
   * @param none the answer statuses that say the game serves none
   */
  constructor(
    private readonly url: (port: number) => string,
    private readonly none: readonly number[],
  ) {
    setInterval(() => this.refreshAll(), 500);
  }

  /** A new panel for this instance (its standing from `fresh`), put into its card's media row. */
  protected abstract create(media: HTMLElement, v: InstanceView): P;
  /** After each attach: show or hide the panel as its standing says. */
  protected abstract placed(media: HTMLElement, p: P): void;
  /** The game serves none: hide the panel. */
  protected abstract hide(p: P): void;
  /** A good answer: show what it says, and that the game serves it. */
  protected abstract show(p: P, res: Response): Promise<void>;
  /** Whether to ask now, beyond the rules every panel follows. */
  protected wanted(_p: P): boolean {
    return true;
  }
  /** What a panel lets go of when its instance is gone. */
  protected dispose(_p: P): void {}

  /** Put (or keep) this instance's panel in its card's media row. */
  attach(media: HTMLElement, v: InstanceView): void {
    let p = this.panels.get(v.port);
    if (!p) {
      p = this.create(media, v);
      this.panels.set(v.port, p);
    }
    if (p.pid !== v.pid) Object.assign(p, { pid: v.pid, supported: null, last: 0 });
    p.live = v.status.startsWith('live');
    this.placed(media, p);
  }

  forget(port: number): void {
    const p = this.panels.get(port);
    if (p) this.dispose(p);
    this.panels.delete(port);
  }

  private refreshAll(): void {
    if (document.hidden) return;
    const now = Date.now();
    for (const [port, p] of this.panels) {
      if (!p.live || p.busy || p.supported === false || now - p.last < EVERY_MS || !this.wanted(p)) continue;
      p.busy = true;
      p.last = now;
      void this.fetchOne(port, p).finally(() => (p.busy = false));
    }
  }

  private async fetchOne(port: number, p: P): Promise<void> {
    try {
      const res = await authFetch(this.url(port));
      if (this.none.includes(res.status)) {
        p.supported = false;
        this.hide(p);
        return;
      }
      if (res.ok) await this.show(p, res);
    } catch {
      /* the next round tries again */
    }
  }
}
