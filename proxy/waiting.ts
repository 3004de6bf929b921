/**
 * The proxy's waiting room: client messages that arrived while no daemon was connected, bounded,
 * and the clock of how long the link has been down. Requests in it are answered with an error
 * once they have waited past the reconnect deadline, or at once when the daemon cannot start.
 */
import type { ClientRequest } from './replay.js';

/** How many client messages may wait for a daemon at once; the next request is refused. */
export const QUEUE_LIMIT = 1000;

/** A client message that arrived while no daemon was connected. */
export interface Queued {
  line: string;
  req?: ClientRequest;
  method?: string;
  since: number;
}

export class WaitingRoom {
  private readonly queued: Queued[] = [];
  /** since when no daemon is connected (undefined while one is) */
  downSince: number | undefined = Date.now();

  get size(): number {
    return this.queued.length;
  }

  get full(): boolean {
    return this.queued.length >= QUEUE_LIMIT;
  }

  /** Keep a message for the next daemon; a message past the limit is dropped (callers refuse requests first). */
  add(line: string, method?: string, req?: ClientRequest): void {
    if (!this.full) this.queued.push({ line, req, method, since: Date.now() });
  }

  /** A cancelled request that never reached any daemon leaves with its cancellation; true when it was here. */
  dropRequest(key: string): boolean {
    const at = this.queued.findIndex((q) => q.req?.key === key);
    if (at < 0) return false;
    this.queued.splice(at, 1);
    return true;
  }

  /** Everything waiting, in arrival order, for a daemon that is up. */
  takeAll(): Queued[] {
    return this.queued.splice(0);
  }

  /** The link has been down for at least `ms` (always, for Infinity: the daemon cannot start). */
  downFor(ms: number, now: number): boolean {
    return ms === Infinity || (this.downSince !== undefined && now - this.downSince >= ms);
  }

  /** The requests that waited `olderThan` ms or more (all of them for Infinity: a daemon that cannot start, a refused home), taken out, newest first. */
  takeExpired(olderThan: number, now: number): ClientRequest[] {
    const expired: ClientRequest[] = [];
    for (let i = this.queued.length - 1; i >= 0; i--) {
      const q = this.queued[i];
      if (q.req && (olderThan === Infinity || now - q.since >= olderThan)) {
        this.queued.splice(i, 1);
        expired.push(q.req);
      }
    }
    return expired;
  }
}
