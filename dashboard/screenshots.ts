/**
 * Each live game's latest screenshot, fetched every few seconds while the page is visible and
 * only from games that serve /screenshot (a 404 stops the asking until the process changes).
 */
import { authFetch } from './auth.js';
import type { InstanceView } from '../daemon/dashboard/view.js';
import { h } from './dom.js';

const EVERY_MS = 2500;

interface Shot {
  figure: HTMLElement;
  img: HTMLImageElement;
  caption: HTMLElement;
  /** the pid it was probed for; a new process is asked again */
  pid: number | null;
  supported: boolean | null;
  busy: boolean;
  last: number;
  url?: string;
  live: boolean;
}

export class Screenshots {
  private shots = new Map<number, Shot>();

  constructor() {
    setInterval(() => this.refreshAll(), 500);
  }

  /** Put (or keep) the screenshot of this instance beside its log. */
  attach(media: HTMLElement, v: InstanceView): void {
    let s = this.shots.get(v.port);
    if (!s) {
      const img = h('img', { alt: `Latest screenshot of the game on port ${v.port}`, width: 160, height: 120 });
      const caption = h('figcaption');
      s = {
        figure: h('figure', { class: 'shot', hidden: true }, img, caption),
        img,
        caption,
        pid: v.pid,
        supported: null,
        busy: false,
        last: 0,
        live: false,
      };
      this.shots.set(v.port, s);
      media.append(s.figure);
    }
    if (s.pid !== v.pid) Object.assign(s, { pid: v.pid, supported: null, last: 0 });
    s.live = v.status === 'live' || v.status === 'live-no-manifest';
    s.figure.hidden = !s.supported;
    media.classList.toggle('with-shot', !!s.supported);
  }

  forget(port: number): void {
    const s = this.shots.get(port);
    if (s?.url) URL.revokeObjectURL(s.url);
    this.shots.delete(port);
  }

  private refreshAll(): void {
    if (document.hidden) return;
    const now = Date.now();
    for (const [port, s] of this.shots) {
      if (!s.live || s.busy || s.supported === false || now - s.last < EVERY_MS) continue;
      s.busy = true;
      s.last = now;
      void this.fetchOne(port, s).finally(() => (s.busy = false));
    }
  }

  private async fetchOne(port: number, s: Shot): Promise<void> {
    try {
      const res = await authFetch(`/dashboard/api/screenshot?port=${port}`);
      // 204: the game serves no /screenshot (404 from a daemon before that)
      if (res.status === 204 || res.status === 404) {
        s.supported = false;
        s.figure.hidden = true;
        s.figure.parentElement?.classList.remove('with-shot');
        return;
      }
      if (!res.ok) return;
      const url = URL.createObjectURL(await res.blob());
      s.img.onload = () => {
        if (s.url) URL.revokeObjectURL(s.url);
        s.url = url;
      };
      s.img.src = url;
      s.supported = true;
      s.figure.hidden = false;
      s.figure.parentElement?.classList.add('with-shot');
      s.caption.textContent = `at ${new Date().toLocaleTimeString([], { hour12: false })}`;
    } catch {
      /* the next round tries again */
    }
  }
}
