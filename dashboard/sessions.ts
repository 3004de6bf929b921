/**
 * The connected MCP sessions: client, version, working directory, proxy pid, since when, and a
 * "Download trace" button for each game a session played (what it did there, as a page a person
 * steps through).
 */
import type { SessionView } from '../daemon/dashboard/view.js';
import { authFetch } from './auth.js';
import { byId, h, setText, shortId, since } from './dom.js';

export class SessionList {
  private readonly list = byId<HTMLUListElement>('sessions');
  private views: SessionView[] = [];

  constructor() {
    // one listener for every button: the list is drawn again when the sessions change
    this.list.addEventListener('click', (e) => {
      const b = (e.target as Element).closest<HTMLButtonElement>('button[data-trace-port]');
      if (b) void this.download(b);
    });
  }

  /** Fetch the trace (the page's secret goes in a header, which a plain link cannot send) and save it. */
  private async download(b: HTMLButtonElement): Promise<void> {
    const { session, tracePort } = b.dataset;
    b.disabled = true;
    try {
      const res = await authFetch(`/dashboard/api/trace?session=${encodeURIComponent(session!)}&port=${tracePort}`);
      if (!res.ok)
        throw new Error(((await res.json().catch(() => ({}))) as { error?: string }).error ?? `HTTP ${res.status}`);
      const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'session.trace.html';
      const url = URL.createObjectURL(await res.blob());
      const a = h('a', { href: url, download: name, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      b.title = `Saved ${name}`;
    } catch (e) {
      b.title = `The trace could not be made: ${(e as Error).message}`;
    } finally {
      b.disabled = false;
    }
  }

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
          s.recorded.length
            ? h(
                'div',
                { class: 'traces' },
                ...s.recorded.map((port) =>
                  h(
                    'button',
                    {
                      type: 'button',
                      'data-session': s.id,
                      'data-trace-port': port,
                      title: `What this session did on port ${port}, as a page to step through`,
                    },
                    `Download trace :${port}`,
                  ),
                ),
              )
            : '',
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
