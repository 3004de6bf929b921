/**
 * What anyone on the machine can do to the daemon's port without a token is bounded: open
 * connections (capped below the file-descriptor limit, so games, files and real clients keep
 * theirs), half-open requests (headers must arrive within seconds), and lines in daemon.log
 * (refusals are logged at a bounded rate, the rest counted). An audit held ~20k half-open
 * requests open and the daemon, at its descriptor limit, failed a real client.
 */
import type { ServerOptions } from 'node:http';
import { numberSetting, SETTINGS } from '../../shared/settings.js';

/** Connections at once (proxies, HTTP clients, upgrades and strays alike); override for tests. */
export function maxConnections(env = process.env): number {
  return numberSetting(SETTINGS.maxConnections, env);
}

/** node:http options: a request's headers within 5 s, its body within 30 s, checked every second. */
export const LISTENER_OPTIONS: ServerOptions = {
  headersTimeout: 5000,
  requestTimeout: 30000,
  connectionsCheckingInterval: 1000,
};

const WINDOW_MS = 60_000;

/** At most `perWindow` refusal lines a minute; the rest are counted in one line when the minute ends. */
export class RefusalLog {
  private windowStart = 0;
  private inWindow = 0;
  private dropped = 0;

  constructor(
    private readonly log: (line: string) => void,
    private readonly perWindow = 10,
  ) {}

  note(line: string): void {
    const now = Date.now();
    if (now - this.windowStart >= WINDOW_MS) {
      if (this.dropped) this.log(`${this.dropped} more refusals in the last minute were not logged one by one`);
      this.windowStart = now;
      this.inWindow = 0;
      this.dropped = 0;
    }
    if (++this.inWindow <= this.perWindow) this.log(line);
    else this.dropped++;
  }
}
