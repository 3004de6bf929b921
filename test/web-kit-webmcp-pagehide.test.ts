/**
 * A page caller's held input goes with its page. In a person's browser a page hidden by a
 * navigation can be kept whole in the back/forward cache and shown again, game and all: what
 * the page's WebMCP caller held must not still be held when it comes back. The built Star
 * Catcher example is joined to the bridge's page carrier in Debian's Chromium with WebMCP on and
 * the back/forward cache left on (playwright turns it off by default, as it is in the daemon's
 * own Chromium, where a hidden page is a closed one); the game's state is read through the
 * carrier, as the bridge reads it.
 */
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { startBrowser, type BrowserHandle } from './helpers/browser.js';
import { startPageCarrier, type PageCarrier } from '../daemon/web/carrier.js';
import { serveStatic, type StaticSite } from '../daemon/web/static.js';
import { WEBMCP_FEATURE } from '../daemon/web/page-tools.js';
import { DIST, waitFor } from './helpers/procs.js';

jest.setTimeout(120_000);

/** the longest hold the kit's `press` takes */
const LEASE_MS = 5000;
const PHASER_WWW = join(DIST, 'examples', 'phaser-game', 'www');
let browser: BrowserHandle;
let site: StaticSite;
let carrier: PageCarrier;

beforeAll(async () => {
  site = await serveStatic({ root: PHASER_WWW });
  carrier = await startPageCarrier({ port: 0, log: () => undefined });
  browser = await startBrowser(undefined, {
    args: [WEBMCP_FEATURE],
    ignoreDefaultArgs: ['--disable-back-forward-cache'],
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await carrier?.close();
  await site?.close();
});

const state = async (): Promise<any> => (await fetch(`http://127.0.0.1:${carrier.port}/state`)).json();

test("a page hidden and shown again from the back/forward cache has let go of its caller's held input", async () => {
  const page = await browser.browser.newPage();
  // how the page was last shown: restored from the back/forward cache, or loaded
  await page.addInitScript(() => addEventListener('pageshow', (e) => ((window as any).restored = e.persisted)));
  await page.goto(`${site.url}index.html${carrier.fragment}`);
  await carrier.waitForJoin(60_000);
  expect((await page.webmcp.callTool('start', {})).structuredContent).toMatchObject({ ok: true });
  const pressed = (await page.webmcp.callTool('press', { input: 'left', ms: LEASE_MS })) as any;
  expect(pressed.structuredContent.ok).toBe(true);
  const before = await state();
  expect(before.input.held).toEqual([{ input: 'left', owner: 'webmcp-page', leaseMsLeft: expect.any(Number) }]);

  // Away and back: the page is hidden (pagehide), kept, and shown again with its game running on.
  await page.goto(`${site.url}rules.js`);
  await page.goBack({ waitUntil: 'commit' });
  // shown from the back/forward cache (a page loaded again would never say so)
  await page.waitForFunction(() => (window as any).restored === true, undefined, { timeout: 20_000 });
  const after = await waitFor(
    'the hold released',
    async () => {
      const s = await state();
      return s.input.held.length === 0 ? s : null;
    },
    20_000,
  );
  // released by a command the page queued as it was hidden, not by its lease running out
  expect(after.completedCommandId).toBe(pressed.structuredContent.commandId + 1);
  expect(after.commandResults).toEqual(
    expect.arrayContaining([{ id: pressed.structuredContent.commandId + 1, ok: true }]),
  );
  expect(after.frame).toBeGreaterThan(before.frame); // the same game, not a new one
  expect(after.sessionEpoch).toBe(before.sessionEpoch);
  await page.close();
});
