/**
 * 2026-era listens over HTTP: a `subscriptions/listen` POST is an SSE stream the SDK's handler
 * serves from its event bus, outside any engine session. What it names is watched here while
 * the stream is open (one watch per URI however many streams name it, so each stream hears a
 * change once), and published on the handler's bus.
 */
import type { ServerResponse } from 'node:http';
import type { ServerNotifier } from '@modelcontextprotocol/server';
import type { EngineSession } from '../sessions/session.js';
import { MAX_SUBSCRIPTIONS } from '../resources/session-resources.js';

export class HttpListenWatches {
  private byUri = new Map<string, { count: number; unwatch: () => void }>();
  private session?: EngineSession;
  private open = 0;

  constructor(
    private readonly openSession: () => EngineSession,
    private readonly notify: () => ServerNotifier,
  ) {}

  /** A request body: when it is a listen, watch what it names until `res` closes. */
  note(body: unknown, res: ServerResponse): void {
    const m = body as { method?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } } | null;
    if (!m || m.method !== 'subscriptions/listen') return;
    const wanted = m.params?.notifications?.resourceSubscriptions;
    if (!this.session) {
      this.session = this.openSession();
      this.session.resources.onListChanged(() => this.notify().resourcesChanged());
    }
    const session = this.session;
    this.open++;
    const held: string[] = [];
    for (const uri of Array.isArray(wanted) ? wanted.slice(0, MAX_SUBSCRIPTIONS) : []) {
      if (typeof uri !== 'string') continue;
      const w = this.byUri.get(uri);
      if (w) {
        w.count++;
        held.push(uri);
        continue;
      }
      try {
        const unwatch = session.resources.watchUri(uri, () => this.notify().resourceUpdated(uri));
        this.byUri.set(uri, { count: 1, unwatch });
        held.push(uri);
      } catch {
        /* not a watchable URI: it is never updated */
      }
    }
    res.once('close', () => {
      for (const uri of held) {
        const w = this.byUri.get(uri);
        if (w && --w.count === 0) {
          w.unwatch();
          this.byUri.delete(uri);
        }
      }
      if (--this.open === 0 && this.session === session) {
        this.session = undefined;
        void session.close().catch(() => undefined);
      }
    });
  }
}
