/**
 * The calls feed: newest first, bounded, each row expands to its arguments and answer. A row
 * names its client and its game; a call to a port made before the game running there now
 * started is marked as one to an earlier game.
 */
import type { CallSummary, InstanceView } from '../daemon/dashboard/view.js';
import { byId, clock, getJson, h, setText, shortId } from './dom.js';

const MAX_ROWS = 200;

interface CallDetail {
  args: string;
  answer: string;
  images: number;
}

export class CallFeed {
  private readonly list = byId<HTMLOListElement>('feed');
  private readonly errorsOnly = byId<HTMLInputElement>('errors-only');
  private sessionNames = new Map<string, string>();
  /** the game on each port now: its name, and when it started */
  private games = new Map<number, { name: string | null; startedAt: number }>();
  private queued: CallSummary[] = [];
  private frame?: number;

  constructor() {
    this.errorsOnly.addEventListener('change', () => this.applyFilter());
  }

  setSessionNames(names: Map<string, string>): void {
    this.sessionNames = names;
  }

  /** The games as they are now; the rows already shown say again which game each call went to. */
  setInstances(views: InstanceView[]): void {
    const games = new Map<number, { name: string | null; startedAt: number }>();
    for (const v of views) games.set(v.port, { name: v.name, startedAt: v.startedAt ? Date.parse(v.startedAt) : NaN });
    const changed =
      games.size !== this.games.size ||
      [...games].some(([p, g]) => this.games.get(p)?.name !== g.name || this.games.get(p)?.startedAt !== g.startedAt);
    this.games = games;
    if (!changed) return;
    for (const li of this.list.querySelectorAll<HTMLLIElement>('li.call[data-port]')) this.markGame(li);
  }

  /** Which game a row's call went to: the one on its port now, or an earlier one. */
  private markGame(li: HTMLElement): void {
    const port = Number(li.dataset.port);
    const game = this.games.get(port);
    // launch_instance {restart} starts before the game it brings up: it is never an earlier game's call
    const earlier =
      li.dataset.tool !== 'launch_instance' && game !== undefined && Date.parse(li.dataset.at!) < game.startedAt;
    li.classList.toggle('earlier', earlier);
    const target = li.querySelector('.target')!;
    setText(target, earlier ? `an earlier game on :${port}` : game?.name ? `${game.name} :${port}` : `:${port}`);
    (target as HTMLElement).title = earlier
      ? `Called before the game on port ${port} now (${game?.name ?? 'unnamed'}) started`
      : `port ${port}`;
  }

  /** The daemon's kept calls (oldest first), replacing what is shown. */
  reset(calls: CallSummary[]): void {
    this.list.replaceChildren();
    this.queued = [];
    const rows = document.createDocumentFragment();
    for (let i = calls.length - 1; i >= 0; i--) rows.append(this.row(calls[i], false));
    this.list.append(rows);
    this.trim();
  }

  /** Finished calls, oldest first: drawn once per animation frame, at most MAX_ROWS of them. */
  addMany(calls: CallSummary[]): void {
    this.queued.push(...calls);
    if (this.queued.length > MAX_ROWS) this.queued.splice(0, this.queued.length - MAX_ROWS);
    this.frame ??= requestAnimationFrame(() => {
      this.frame = undefined;
      const batch = this.queued;
      this.queued = [];
      // a burst is shown without the highlight: it would only flicker
      const fresh = batch.length <= 5;
      const rows = document.createDocumentFragment();
      for (let i = batch.length - 1; i >= 0; i--) rows.append(this.row(batch[i], fresh));
      this.list.prepend(rows);
      this.trim();
    });
  }

  add(c: CallSummary, fresh = true): void {
    this.list.prepend(this.row(c, fresh));
    this.trim();
  }

  private trim(): void {
    while (this.list.childElementCount > MAX_ROWS) this.list.lastElementChild?.remove();
    this.counts();
  }

  private row(c: CallSummary, fresh: boolean): HTMLLIElement {
    const tool = h(
      'span',
      { class: 'tool' },
      c.tool,
      c.gameTool ? h('span', { class: 'game' }, ` › ${c.gameTool}`) : '',
    );
    const answer = c.ok ? undefined : notAFailure(c);
    const result = c.ok
      ? h('span', { class: 'badge s-live' }, 'OK')
      : answer
        ? h('span', { class: 'badge s-quiet', title: `${c.errorClass}: ${answer}` }, answer)
        : h('span', { class: 'badge s-bad' }, c.errorClass ?? 'Error');
    const who = c.client ?? this.sessionNames.get(c.session) ?? shortId(c.session);
    // the tool on the first line; the client and the game below it, where they have the row's width
    const summary = h(
      'summary',
      {},
      h('time', { datetime: c.at }, clock(c.at, true)),
      tool,
      h(
        'span',
        { class: 'who' },
        h('span', { class: 'sess', title: `session ${c.session}` }, who),
        c.port !== undefined ? h('span', { class: 'target' }, `:${c.port}`) : '',
      ),
      h('span', { class: 'ms' }, `${c.ms < 10 ? c.ms.toFixed(1) : Math.round(c.ms)} ms`),
      result,
    );
    tool.title = c.gameTool ? `${c.tool} › ${c.gameTool}` : c.tool;
    const body = h('div', { class: 'call-body' });
    const details = h('details', {}, summary, body);
    details.addEventListener('toggle', () => {
      if (details.open && !body.childElementCount) void this.expand(c.id, body);
    });
    const li = h(
      'li',
      {
        class: `call${fresh ? ' fresh' : ''}`,
        'data-id': c.id,
        'data-ok': String(c.ok || answer !== undefined),
        'data-tool': c.gameTool ?? c.tool,
        'data-at': c.at,
        'data-port': c.port !== undefined ? String(c.port) : undefined,
      },
      details,
    );
    li.hidden = this.errorsOnly.checked && li.dataset.ok === 'true';
    if (c.port !== undefined) this.markGame(li);
    return li;
  }

  private async expand(id: number, body: HTMLElement): Promise<void> {
    body.append(h('p', { class: 'hint' }, 'Loading…'));
    try {
      const d = await getJson<CallDetail>(`/dashboard/api/calls/${id}`);
      body.replaceChildren(
        h('h4', {}, 'Arguments'),
        h('pre', { class: 'json', tabindex: 0 }, pretty(d.args)),
        h('h4', {}, `Answer${d.images ? ` (+${d.images} image${d.images > 1 ? 's' : ''})` : ''}`),
        h('pre', { class: 'json', tabindex: 0 }, pretty(d.answer)),
      );
    } catch (e) {
      body.replaceChildren(h('p', { class: 'hint' }, (e as Error).message));
    }
  }

  private applyFilter(): void {
    for (const li of this.list.children)
      (li as HTMLElement).hidden = this.errorsOnly.checked && (li as HTMLElement).dataset.ok === 'true';
    this.counts();
  }

  private counts(): void {
    const shown = this.list.childElementCount;
    setText(byId('n-calls'), shown ? `last ${shown}` : '');
    byId('feed-empty').hidden = shown > 0;
  }
}

/** The check tools: a condition that did not hold is their answer, not a fault. */
const CHECKS = new Set(['wait_for', 'assert', 'wait_for_node', 'wait_for_object']);

/**
 * A failed call that is an answer rather than something broken, in a word, or undefined: a check
 * whose condition did not hold (the test runner's expects and an agent's waits), and a game asked
 * for a screenshot it does not serve (the test runner asks each game once, for its traces).
 */
export function notAFailure(c: CallSummary): string | undefined {
  const tool = (c.gameTool ?? c.tool).replace(/^bridge\./, '');
  if (CHECKS.has(tool) && (c.errorClass === 'CommandTimeout' || c.errorClass === 'AssertionFailed')) return 'Not met';
  if (tool === 'screenshot' && c.errorClass === 'CapabilityMissing') return 'No screenshots';
  return undefined;
}

/** JSON text indented when it parses; as it came otherwise (an error's text). */
export function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
