/**
 * Taking back a browser game a previous daemon launched (after a crash or a handover): a new
 * page carrier on the same port with the same key, which the page's kit rejoins by itself, its
 * static folder served again, and the page taken back over CDP.
 */
import { attachBrowser, endChromium, type WebBrowser } from '../web/browser.js';
import { startPageCarrier, type PageCarrier } from '../web/carrier.js';
import { createStandIn } from '../web/stand-in.js';
import { serveStatic, type StaticSite } from '../web/static.js';
import { appendLogLine, HEADER_PREFIX } from './logfile.js';
import { treeAlive } from './processes.js';
import { escalate } from './stop.js';
import type { LaunchedInstance } from './types.js';
import { WebGame } from './web-game.js';

/** How long a re-adopted page may take to find the new carrier (its kit retries at most every 2 s). */
const REJOIN_TIMEOUT_MS = 10_000;

/**
 * A web instance a previous daemon launched: Chromium still running and reachable → a carrier
 * on the same port with the same key (the page's kit rejoins it by itself), its static folder
 * served again, the page taken back over CDP. Otherwise everything of it is ended: null.
 */
export async function readoptWebGame(inst: LaunchedInstance): Promise<WebGame | null> {
  const rec = inst.web!;
  const log = (line: string) => appendLogLine(inst.logFile, line);
  let carrier: PageCarrier | undefined;
  let site: StaticSite | undefined;
  let browser: WebBrowser | undefined;
  try {
    if (inst.starting || !treeAlive(rec.browser.pid)) throw new Error('Chromium is gone');
    const standIn = rec.kit === false ? createStandIn() : undefined;
    carrier = await startPageCarrier({
      port: inst.port,
      key: rec.key,
      log: (l) => log(`${HEADER_PREFIX} ${l}`),
      ...(standIn ? { standIn: standIn.answer } : {}),
    });
    if (rec.static)
      site = await serveStatic({ root: rec.static.root, port: rec.static.port }).catch(() =>
        serveStatic({ root: rec.static!.root }),
      );
    browser = await attachBrowser(rec.browser, { onConsole: log });
    // What the dead daemon held stays down in Chromium (it has no leases): let go of it now.
    for (const name of rec.held ?? [])
      await browser
        .hold(name)
        .then(() => browser!.release(name))
        .catch(() => undefined);
    if (standIn) standIn.attach(browser.page);
    else await carrier.waitForJoin(REJOIN_TIMEOUT_MS);
    log(
      `${HEADER_PREFIX} re-adopted by daemon pid ${process.pid}: ${standIn ? 'the page (without a kit) taken back' : 'the page joined again'}`,
    );
    return new WebGame(
      inst.port,
      { ...rec, held: undefined, static: rec.static && site ? { root: rec.static.root, port: site.port } : undefined },
      carrier,
      browser,
      site,
    );
  } catch (e) {
    log(`${HEADER_PREFIX} not re-adopted (${(e as Error).message.split('\n')[0]}): its browser and server were ended`);
    await browser?.close().catch(() => undefined);
    await endChromium(rec.browser); // not attached (or attached and closed): its group and profile go all the same
    await carrier?.close().catch(() => undefined);
    await site?.close().catch(() => undefined);
    if (rec.serverPgid && treeAlive(rec.serverPgid)) await escalate(rec.serverPgid).catch(() => undefined);
    return null;
  }
}
