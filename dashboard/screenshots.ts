/**
 * Each live game's latest screenshot, fetched every few seconds while the page is visible and
 * only from games that serve /screenshot (a 404 stops the asking until the process changes).
 */
import type { InstanceView } from '../daemon/dashboard/view.js';
import { byId, h, setText } from './dom.js';
import { fresh, PolledPanels, type Polled } from './polled.js';

interface Shot extends Polled {
  figure: HTMLElement;
  img: HTMLImageElement;
  caption: HTMLElement;
  url?: string;
  port: number;
}

const zoom = () => byId<HTMLDialogElement>('shot-zoom');
const zoomImg = () => byId<HTMLImageElement>('shot-zoom-img');

export class Screenshots extends PolledPanels<Shot> {
  /** the port whose picture the full-size view shows, while it is open */
  private zoomed?: number;

  constructor() {
    // 204: the game serves no /screenshot (404 from a daemon before that)
    super((port) => `/dashboard/api/screenshot?port=${port}`, [204, 404]);
    zoom().addEventListener('close', () => (this.zoomed = undefined));
    zoomImg().addEventListener('click', () => zoom().close());
  }

  protected create(media: HTMLElement, v: InstanceView): Shot {
    const img = h('img', {
      alt: `Latest screenshot of the game on port ${v.port}`,
      title: 'Click to see it at full size',
      width: 160,
      height: 120,
    });
    const caption = h('figcaption');
    const figure = h('figure', { class: 'shot', hidden: true }, img, caption);
    media.append(figure);
    const shot: Shot = { figure, img, caption, port: v.port, ...fresh(v) };
    img.addEventListener('click', () => this.enlarge(shot));
    return shot;
  }

  /** The picture at its own size (as large as the window allows), kept fresh while it is open. */
  private enlarge(s: Shot): void {
    if (!s.img.src) return;
    this.zoomed = s.port;
    const img = zoomImg();
    // a small picture is scaled up by a whole factor, as large as the window allows, so its pixels stay sharp
    img.onload = () => {
      const fit = Math.min((innerWidth * 0.96 - 24) / img.naturalWidth, (innerHeight * 0.96 - 64) / img.naturalHeight);
      img.style.width = `${img.naturalWidth * Math.max(1, Math.floor(fit))}px`;
    };
    img.src = s.img.src;
    zoomImg().alt = s.img.alt;
    setText(byId('shot-zoom-title'), `Port ${s.port} · ${s.caption.textContent ?? ''}`);
    if (!zoom().open) zoom().showModal();
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
    if (this.zoomed === s.port) this.enlarge(s);
  }

  protected dispose(s: Shot): void {
    if (s.url) URL.revokeObjectURL(s.url);
  }
}
