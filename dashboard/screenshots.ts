/**
 * Each live game's latest screenshot, fetched every few seconds while the page is visible and
 * only from games that serve /screenshot (a 404 stops the asking until the process changes).
 */
import type { InstanceView } from '../daemon/dashboard/view.js';
import { h } from './dom.js';
import { fresh, PolledPanels, type Polled } from './polled.js';

interface Shot extends Polled {
  figure: HTMLElement;
  img: HTMLImageElement;
  caption: HTMLElement;
  url?: string;
}

export class Screenshots extends PolledPanels<Shot> {
  constructor() {
    // 204: the game serves no /screenshot (404 from a daemon before that)
    super((port) => `/dashboard/api/screenshot?port=${port}`, [204, 404]);
  }

  protected create(media: HTMLElement, v: InstanceView): Shot {
    const img = h('img', { alt: `Latest screenshot of the game on port ${v.port}`, width: 160, height: 120 });
    const caption = h('figcaption');
    const figure = h('figure', { class: 'shot', hidden: true }, img, caption);
    media.append(figure);
    return { figure, img, caption, ...fresh(v) };
  }

  protected placed(media: HTMLElement, s: Shot): void {
    s.figure.hidden = !s.supported;
    media.classList.toggle('with-shot', !!s.supported);
  }

  protected hide(s: Shot): void {
    s.figure.hidden = true;
    s.figure.parentElement?.classList.remove('with-shot');
  }

  protected async show(s: Shot, res: Response): Promise<void> {
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
  }

  protected dispose(s: Shot): void {
    if (s.url) URL.revokeObjectURL(s.url);
  }
}
