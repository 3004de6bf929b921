/**
 * One session's resources: the handlers a session's SDK servers answer resources/* with, and
 * the subscriptions it holds. A subscription is held by a 2025-era `resources/subscribe` or by a
 * 2026-era `subscriptions/listen` that names the URI (seen on the way in: the SDK's stdio entry
 * serves the listen itself); both end with the session.
 */
import { ProtocolError, ProtocolErrorCode, type Server, type Transport } from '@modelcontextprotocol/server';
import { toBridgeError, usageError } from '../../shared/errors.js';
import type { ToolContext } from '../tool-framework/context.js';
import { listSeen } from '../tools/list-instances.js';
import { metNeeds } from '../bridge/needs.js';
import { readResource } from './read.js';
import { GAME_RESOURCES, gameUri, INSTANCES_URI, KINDS, parseUri, resourceTemplates, WATCHABLE } from './uris.js';
import type { ResourceWatches } from './watch.js';

/** Subscriptions one session may hold at once (each is a watch on a game). */
export const MAX_SUBSCRIPTIONS = 64;

/** A failure as a JSON-RPC error whose message is the tool's text: class first, then the next step. */
function asProtocolError(e: unknown, uri: string, explain: (e: unknown) => Promise<unknown>): Promise<never> {
  return explain(e).then((explained) => {
    const err = toBridgeError(explained);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, err.text, { uri, ...err.data });
  });
}

export interface SessionResourcesDeps {
  ctx: ToolContext;
  watches: ResourceWatches;
  /** the SDK servers currently speaking for the session */
  servers: () => Iterable<Server>;
  /** a launched game's exit, explained as the tools explain it */
  explain: (e: unknown) => Promise<unknown>;
  /** subscribe to "the set of games may have changed"; answers the unsubscribe */
  onInstancesChanged: (l: () => void) => () => void;
}

export class SessionResources {
  /** uri → who holds it ('subscribe', or a listen's id) and the watch it keeps */
  private subs = new Map<string, { holders: Set<string>; unwatch: () => void }>();
  private readonly unlisten: () => void;
  private readonly listChangedListeners = new Set<() => void>();
  private closed = false;

  constructor(private readonly deps: SessionResourcesDeps) {
    this.unlisten = deps.onInstancesChanged(() => {
      for (const s of deps.servers()) void s.sendResourceListChanged().catch(() => undefined);
      for (const l of this.listChangedListeners) l();
    });
  }

  /** Also tell `l` when games come and go (a 2026-era HTTP listen, which no server of this session carries). */
  onListChanged(l: () => void): void {
    this.listChangedListeners.add(l);
  }

  /** Watch a state or ui URI outside any server (a 2026-era HTTP listen); a URI that cannot be watched throws. */
  watchUri(uri: string, onChange: () => void): () => void {
    const target = this.watchable(uri);
    return this.deps.watches.watch(this.deps.ctx, target.port, target.kind, onChange);
  }

  /** The resources/* handlers, on one of the session's servers. */
  install(server: Server): void {
    server.setRequestHandler('resources/list', async () => ({ resources: await this.list() }));
    server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: resourceTemplates() }));
    server.setRequestHandler('resources/read', async (req, ctx) => {
      const uri = String(req.params.uri);
      try {
        return { contents: [await readResource(this.deps.ctx, uri, ctx.mcpReq.signal)] };
      } catch (e) {
        return asProtocolError(e, uri, this.deps.explain);
      }
    });
    server.setRequestHandler('resources/subscribe', async (req) => {
      const uri = String(req.params.uri);
      try {
        this.hold(uri, 'subscribe');
      } catch (e) {
        return asProtocolError(e, uri, this.deps.explain);
      }
      return {};
    });
    server.setRequestHandler('resources/unsubscribe', async (req) => {
      this.release(String(req.params.uri), 'subscribe');
      return {};
    });
  }

  /** The instances resource, and the resources each live game serves (state, manifest, log; ui and screenshot when it has them). */
  async list() {
    const ctx = this.deps.ctx;
    const found = await listSeen(ctx).catch(() => undefined);
    const out: Array<{ uri: string; name: string; title: string; description: string; mimeType: string }> = [
      {
        uri: INSTANCES_URI,
        name: 'instances',
        title: 'Game instances',
        description:
          'The running games, games launched here that exited, stale registry entries (as list_instances answers).',
        mimeType: 'application/json',
      },
    ];
    const live = found?.live ?? [];
    // ui and screenshot are listed only for a game that serves them, so nothing listed refuses a read.
    const served = await Promise.all(live.map((inst) => metNeeds(ctx, inst.port).catch(() => () => false)));
    for (const [i, inst] of live.entries()) {
      const game = `${inst.game ?? 'game'} :${inst.port}`;
      for (const kind of KINDS.filter((k) => (k === 'ui' || k === 'screenshot' ? served[i](k) : true)))
        out.push({
          uri: gameUri(inst.port, kind),
          name: `${inst.port}-${kind}`,
          title: `${game} ${GAME_RESOURCES[kind].title}`,
          description: GAME_RESOURCES[kind].description,
          mimeType: GAME_RESOURCES[kind].mimeType,
        });
    }
    return out;
  }

  /**
   * A 2026-era listen or its cancellation, seen as it arrives: the URIs it names are watched
   * for as long as it is open (the SDK routes the updates to it).
   */
  observe(msg: unknown): void {
    const m = msg as { method?: unknown; id?: unknown; params?: Record<string, unknown> } | null;
    if (!m || typeof m.method !== 'string') return;
    if (m.method === 'subscriptions/listen' && m.id !== undefined) {
      const wanted = (m.params?.notifications as { resourceSubscriptions?: unknown } | undefined)
        ?.resourceSubscriptions;
      if (!Array.isArray(wanted)) return;
      for (const uri of wanted.slice(0, MAX_SUBSCRIPTIONS)) {
        try {
          if (typeof uri === 'string') this.hold(uri, `listen:${JSON.stringify(m.id)}`);
        } catch {
          /* a URI that is not watchable is simply never updated */
        }
      }
    }
    if (m.method === 'notifications/cancelled' && m.params?.requestId !== undefined)
      this.releaseHolder(`listen:${JSON.stringify(m.params.requestId)}`);
  }

  /** How many URIs this session watches. */
  get subscriptionCount(): number {
    return this.subs.size;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unlisten();
    for (const s of this.subs.values()) s.unwatch();
    this.subs.clear();
  }

  private hold(uri: string, holder: string): void {
    if (this.closed) return;
    const target = this.watchable(uri);
    const held = this.subs.get(uri);
    if (held) return void held.holders.add(holder);
    if (this.subs.size >= MAX_SUBSCRIPTIONS)
      throw usageError(
        `This session already watches ${MAX_SUBSCRIPTIONS} resources; unsubscribe from one before adding '${uri}'.`,
      );
    const unwatch = this.deps.watches.watch(this.deps.ctx, target.port, target.kind, () => {
      for (const s of this.deps.servers()) void s.sendResourceUpdated({ uri }).catch(() => undefined);
    });
    this.subs.set(uri, { holders: new Set([holder]), unwatch });
  }

  private watchable(uri: string): { port: number; kind: 'state' | 'ui' } {
    const target = parseUri(uri);
    if (target.kind === 'instances' || !WATCHABLE.includes(target.kind))
      throw usageError(
        `'${uri}' cannot be subscribed to: only a game's state and ui change as it runs ` +
          `(gamebridge://game/${'port' in target ? target.port : '{port}'}/state or …/ui). Read the others when you need them.`,
      );
    return target as { port: number; kind: 'state' | 'ui' };
  }

  private release(uri: string, holder: string): void {
    const held = this.subs.get(uri);
    if (!held) return;
    held.holders.delete(holder);
    if (held.holders.size) return;
    held.unwatch();
    this.subs.delete(uri);
  }

  private releaseHolder(holder: string): void {
    for (const uri of [...this.subs.keys()]) this.release(uri, holder);
  }
}

/**
 * A transport whose inbound messages `observe` sees before the SDK does (the SDK sets
 * `onmessage` after it is handed the transport, so the tap wraps whatever it sets).
 */
export function tapInbound<T extends Transport>(transport: T, observe: (msg: unknown) => void): T {
  let handler: Transport['onmessage'];
  const tapped: Transport['onmessage'] = (msg, extra) => {
    try {
      observe(msg);
    } catch {
      /* watching is best effort; the message goes on */
    }
    handler?.(msg, extra);
  };
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => (handler ? tapped : undefined),
    set: (h: Transport['onmessage']) => (handler = h),
  });
  return transport;
}
