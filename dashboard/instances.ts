/** The instance cards: one per port, updated in place so open logs and screenshots stay put. */
import type { InstanceView } from '../daemon/dashboard/view.js';
import { byId, duration, h, setText, shortId, since } from './dom.js';
import { Screenshots } from './screenshots.js';
import { UiTrees } from './ui-trees.js';

const STATUS: Record<InstanceView['status'], { label: string; cls: string }> = {
  live: { label: 'Live', cls: 's-live' },
  'live-no-manifest': { label: 'Live · no manifest', cls: 's-live' },
  // a page without the kit has no command list by design: it is played through the browser
  'live-web-page': { label: 'Live · web page', cls: 's-live' },
  unreachable: { label: 'Not answering', cls: 's-bad' },
  stale: { label: 'Stale', cls: 's-stale' },
  exited: { label: 'Exited', cls: 's-exited' },
};

interface Card {
  el: HTMLElement;
  title: HTMLElement;
  badge: HTMLElement;
  facts: Map<string, HTMLElement>;
  notes: HTMLElement;
  tags: HTMLElement;
  log: HTMLDetailsElement;
  logPre: HTMLElement;
  media: HTMLElement;
  view: InstanceView;
  logAtEnd: boolean;
}

const FACTS = ['Port', 'PID', 'Owner', 'Uptime', 'FPS', 'Frame', 'Errors', 'Screen', 'Source'] as const;
/** What still means something for a game that is not running. */
const GONE_FACTS = new Set<string>(['Port', 'PID', 'Uptime', 'Errors']);
/** Words rather than numbers: set in the text face, which is narrower than the monospace one. */
const TEXT_FACTS = new Set<string>(['Owner', 'Screen', 'Source']);

export class InstanceCards {
  private cards = new Map<number, Card>();
  private readonly root = byId('instances');
  private readonly shots = new Screenshots();
  private readonly trees = new UiTrees();
  private sessionNames = new Map<string, string>();

  /** Owner ids read better as the client's name. */
  setSessionNames(names: Map<string, string>): void {
    this.sessionNames = names;
  }

  update(list: InstanceView[]): void {
    setText(
      byId('n-instances'),
      list.length ? `${list.filter((i) => i.status.startsWith('live')).length} live · ${list.length} shown` : '',
    );
    const keep = new Set(list.map((i) => i.port));
    for (const [port, card] of this.cards) {
      if (!keep.has(port)) {
        card.el.remove();
        this.cards.delete(port);
        this.shots.forget(port);
        this.trees.forget(port);
      }
    }
    const empty = this.root.querySelector('.empty');
    if (empty) empty.toggleAttribute('hidden', list.length > 0);
    list.forEach((view, i) => {
      const card = this.cards.get(view.port) ?? this.create(view);
      card.view = view;
      this.fill(card);
      if (this.root.children[i + 1] !== card.el) this.root.insertBefore(card.el, this.root.children[i + 1] ?? null);
      if (card.logAtEnd) card.logPre.scrollTop = card.logPre.scrollHeight;
    });
  }

  /** Uptimes move every second without waiting for the daemon. */
  tick(): void {
    for (const card of this.cards.values()) setText(card.facts.get('Uptime')!, uptime(card.view));
  }

  private create(view: InstanceView): Card {
    const title = h('h3');
    const badge = h('span', { class: 'badge' });
    const facts = new Map<string, HTMLElement>();
    const dl = h('dl', { class: 'facts' });
    for (const f of FACTS) {
      const dd = h('dd', { class: TEXT_FACTS.has(f) ? `text${f === 'Owner' ? ' wraps' : ''}` : undefined });
      facts.set(f, dd);
      dl.append(h('div', {}, h('dt', {}, f), dd));
    }
    const logPre = h('pre', { tabindex: 0 });
    const log = h('details', { class: 'log', open: true }, h('summary', {}, 'Log tail'), logPre);
    const notes = h('div');
    const tags = h('div', { class: 'tags', 'aria-label': 'Toolsets' });
    // facts beside the screenshot (when the game serves one), the log below both
    const media = h('div', { class: 'media' }, h('div', { class: 'about' }, dl, notes, tags));
    const el = h(
      'article',
      { class: 'card', 'aria-label': `Instance on port ${view.port}` },
      h('div', { class: 'card-head' }, title, badge),
      media,
      log,
    );
    const card: Card = { el, title, badge, facts, notes, tags, log, logPre, media, view, logAtEnd: true };
    this.cards.set(view.port, card);
    return card;
  }

  private fill(card: Card): void {
    const v = card.view;
    card.el.dataset.status = v.status;
    card.el.dataset.port = String(v.port);
    const status = badgeOf(v);
    card.badge.className = `badge ${status.cls}`;
    setText(card.badge, status.label);
    card.title.replaceChildren(v.name ?? 'Unknown game', v.version ? h('span', { class: 'ver' }, v.version) : '');
    const owner = v.owner ? (this.sessionNames.get(v.owner) ?? shortId(v.owner)) : v.launched ? 'detached' : '—';
    const values: Record<(typeof FACTS)[number], string> = {
      Port: String(v.port),
      PID: v.pid === null ? '—' : String(v.pid),
      Owner: owner,
      Uptime: uptime(v),
      // a paused clock is what matters: the frames a game still draws meanwhile are in the title
      FPS: v.paused ? 'paused' : v.fps === null ? '—' : v.fps.toFixed(1),
      Frame: v.frame === null ? '—' : String(v.frame),
      Errors: v.errors === null ? '—' : String(v.errors),
      Screen: v.screen ?? '—',
      Source: v.launched
        ? 'launched'
        : v.discovery === 'both'
          ? 'registry + scan'
          : (v.discovery ?? (v.status === 'stale' ? 'registry' : '—')),
    };
    for (const f of FACTS) {
      const dd = card.facts.get(f)!;
      setText(dd, values[f]);
      dd.title =
        f === 'Owner' && v.owner
          ? `session ${v.owner}`
          : f === 'FPS' && v.paused && v.fps !== null
            ? `paused (drawing ${v.fps.toFixed(1)} frames a second)`
            : values[f];
      dd.parentElement!.hidden = (v.status === 'exited' || v.status === 'stale') && !GONE_FACTS.has(f);
    }
    setText(card.facts.get('Uptime')!.previousElementSibling!, v.status === 'exited' ? 'Ran for' : 'Uptime');
    card.notes.replaceChildren(...notes(v));
    card.tags.replaceChildren(...v.toolsets.map((t) => h('span', { class: 'tag' }, t)));
    card.log.hidden = !v.log;
    const text = v.log && v.log.length ? v.log.join('\n') : '(no output yet)';
    // Follow the log's end unless the reader scrolled up in it.
    card.logAtEnd =
      !card.logPre.isConnected || card.logPre.scrollTop + card.logPre.clientHeight >= card.logPre.scrollHeight - 4;
    setText(card.logPre, text);
    this.shots.attach(card.media, v);
    this.trees.attach(card.media, v);
  }
}

/** The badge: a crash (a signal, a non-zero code) reads differently from a clean end. */
function badgeOf(v: InstanceView): { label: string; cls: string } {
  if (v.status === 'exited' && v.exit?.signal) return { label: `Killed · ${v.exit.signal}`, cls: 's-bad' };
  if (v.status === 'exited' && v.exit && v.exit.code !== null && v.exit.code !== 0)
    return { label: `Exited · code ${v.exit.code}`, cls: 's-bad' };
  const live = v.status.startsWith('live');
  const kind = STATUS[v.status].label;
  if (live && v.paused) return { label: `${kind} · paused`, cls: 's-paused' };
  return { ...STATUS[v.status], label: kind };
}

function uptime(v: InstanceView): string {
  if (v.status === 'exited') return v.exit?.ranMs != null ? duration(v.exit.ranMs) : '—';
  return since(v.startedAt);
}

function notes(v: InstanceView): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (v.exit) {
    const ran = v.exit.ranMs !== null ? ` after ${duration(v.exit.ranMs)}` : '';
    out.push(
      h(
        'p',
        { class: 'note exit' },
        `${capital(v.exit.how)} at ${new Date(v.exit.at).toLocaleTimeString([], { hour12: false })}${ran}${v.exit.lastCommand ? `; last command: ${v.exit.lastCommand}` : ''}.`,
      ),
    );
  }
  if (v.detail) out.push(h('p', { class: 'note' }, v.detail));
  if (v.held && v.held.length)
    out.push(
      h(
        'p',
        { class: 'note' },
        `Held inputs: ${v.held.map((x) => (typeof x === 'object' && x ? String((x as { input?: unknown }).input ?? JSON.stringify(x)) : String(x))).join(', ')}`,
      ),
    );
  return out;
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
