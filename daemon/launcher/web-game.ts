/**
 * One running browser game this daemon launched (docs/CONTRACT.md, "Browser games"): its page
 * carrier on the instance's port, the page's server (a static folder served here, or the
 * game's own command), and the Chromium that shows the page. Stopping asks the page to close
 * through the carrier, then ends all of it. It ends with its daemon (web-readopt.ts).
 * While it runs, this daemon's own calls to the port are answered by the carrier in-process.
 */
import { GameClient } from '../game/client.js';
import type { LocalSurfaces } from '../game/local-surfaces.js';
import type { WebBrowser } from '../web/browser.js';
import type { PageCarrier } from '../web/carrier.js';
import { OwnedHands } from '../web/owned-hands.js';
import type { StandIn } from '../web/stand-in.js';
import type { StaticSite } from '../web/static.js';
import { treeAlive, waitUntil } from './processes.js';
import { escalate } from './stop.js';
import type { StopHow, WebRecord } from './types.js';

export class WebGame {
  /** held keys, buttons and touches, by owner (the MCP session) */
  readonly hands: OwnedHands;
  private ended = false;
  private readonly stopServingLocally: () => void;

  constructor(
    readonly port: number,
    readonly record: WebRecord,
    readonly carrier: PageCarrier,
    readonly browser: WebBrowser,
    private readonly site: StaticSite | undefined,
    private readonly surfaces: LocalSurfaces,
    /** a page without the kit: the bridge answers for it (stand-in.ts) */
    readonly standIn?: StandIn,
  ) {
    this.hands = new OwnedHands(browser);
    this.stopServingLocally = surfaces.serve(port, (target) => carrier.answer(target));
  }

  /** PNG of the page as a person would see it (canvas and DOM together). */
  screenshot(): Promise<Buffer> {
    return this.browser.screenshot();
  }

  /** The game's own `close` through the carrier; the page leaving within graceMs is a clean close. Then everything goes. */
  async stop(graceMs: number, httpTimeoutMs: number): Promise<StopHow> {
    // a page stuck in its own code takes no key: it is let go of in the books, and its renderer goes below
    await Promise.race([this.hands.releaseAll(), new Promise((r) => setTimeout(r, 1000).unref())]);
    let how: StopHow = 'terminated';
    if (this.carrier.page) {
      const client = new GameClient(this.port, {
        timeoutMs: Math.max(100, Math.min(httpTimeoutMs, graceMs)),
        local: this.surfaces,
      });
      try {
        await client.command('close');
        if (await waitUntil(() => !this.carrier.page, graceMs)) how = 'closed cleanly';
      } catch {
        /* the page did not answer: ending the browser below ends it */
      } finally {
        client.close();
      }
    }
    await this.end();
    return how;
  }

  /** Ends Chromium (its whole process group), the carrier, the static server and the page's server. Idempotent. */
  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.stopServingLocally();
    await Promise.race([
      this.hands.releaseAll().catch(() => undefined),
      new Promise((r) => setTimeout(r, 1000).unref()),
    ]);
    await this.browser.close().catch(() => undefined);
    await this.carrier.close().catch(() => undefined);
    await this.site?.close().catch(() => undefined);
    const server = this.record.serverPgid;
    if (server && treeAlive(server)) await escalate(server).catch(() => undefined);
  }
}
