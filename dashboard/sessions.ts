/** The connected MCP sessions: client, version, working directory, proxy pid, since when. */
import type { SessionView } from '../daemon/dashboard/view.js';
import { byId, h, setText, shortId, since } from './dom.js';

export class SessionList {
  private readonly list = byId<HTMLUListElement>('sessions');
  private views: SessionView[] = [];

  update(views: SessionView[]): void {
    this.views = views;
    setText(byId('n-sessions'), views.length ? String(views.length) : '');
    byId('sessions-empty').hidden = views.length > 0;
    this.list.replaceChildren(
      ...views.map((s) =>
        h(
          'li',
          { class: 'session', 'data-id': s.id },
          h(
            'div',
            { class: 'session-head' },
            h('b', {}, s.client ? `${s.client.name} ${s.client.version}` : 'Client not initialized yet'),
            h('span', { class: 'mono count', title: s.id }, shortId(s.id)),
          ),
          h('div', { class: 'cwd', title: s.cwd }, h('bdi', {}, s.cwd)),
          h(
            'div',
            { class: 'meta' },
            h('span', {}, `proxy pid ${s.pid ?? '—'}`),
            h('span', { 'data-since': s.since }, `for ${since(s.since)}`),
            h('span', {}, `${s.calls} call${s.calls === 1 ? '' : 's'}`),
            h('span', { class: s.view === 'player' ? 'view-player' : undefined }, `${s.view} view`),
            s.owns.length ? h('span', {}, `owns ${s.owns.map((p) => `:${p}`).join(' ')}`) : '',
          ),
        ),
      ),
    );
  }

  /** Display names for session ids (feed rows, owners). */
  names(): Map<string, string> {
    return new Map(this.views.map((s) => [s.id, s.client ? s.client.name : shortId(s.id)]));
  }

  tick(): void {
    for (const el of this.list.querySelectorAll<HTMLElement>('[data-since]'))
      setText(el, `for ${since(el.dataset.since!)}`);
  }
}
