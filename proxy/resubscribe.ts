/**
 * The resource subscriptions a 2025-era client holds, so that a new daemon after a restart is
 * told them again (a subscription lives in the daemon's session, which died with it). A
 * 2026-era client's subscriptions are open `subscriptions/listen` requests: safe to re-send,
 * they are re-sent with the other requests in flight.
 */
import type { Json } from '../shared/stdio-lines.js';
import type { ClientRequest } from './replay.js';

/** At most this many URIs are remembered (the daemon holds no more per session either). */
const MAX_REMEMBERED = 64;

export class Subscriptions {
  /** URIs the daemon said yes to */
  private held = new Set<string>();
  /** subscribe requests on their way, by request key */
  private asked = new Map<string, string>();
  /** the proxy's own re-subscriptions on their way, by request key */
  private replayed = new Map<string, string>();

  /** A client request on its way. */
  noteRequest(req: ClientRequest, params: unknown): void {
    const uri = (params as { uri?: unknown } | undefined)?.uri;
    if (typeof uri !== 'string') return;
    if (req.method === 'resources/subscribe') this.asked.set(req.key, uri);
    if (req.method === 'resources/unsubscribe') this.held.delete(uri);
  }

  /** The daemon answered a client request. */
  noteAnswer(req: ClientRequest, msg: Json): void {
    const uri = this.asked.get(req.key);
    if (uri === undefined) return;
    this.asked.delete(req.key);
    if (msg.result && this.held.size < MAX_REMEMBERED) this.held.add(uri);
  }

  /** What to subscribe to again on a new daemon. */
  uris(): string[] {
    return [...this.held];
  }

  /** A re-subscription sent under the proxy's hidden id `key`. */
  replaying(key: string, uri: string): void {
    this.replayed.set(key, uri);
  }

  /**
   * The answer to a re-subscription: undefined when it worked; else the URI, dropped (the
   * client is told, since its subscription has ended), and the reason.
   */
  replayAnswer(key: string, msg: Json): { uri: string; why: string } | undefined {
    const uri = this.replayed.get(key);
    this.replayed.delete(key);
    if (uri === undefined || !msg.error) return undefined;
    this.held.delete(uri);
    return { uri, why: String((msg.error as { message?: unknown }).message ?? 'refused') };
  }
}
