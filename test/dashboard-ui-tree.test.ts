/**
 * The dashboard shows a game's UI tree beside its screenshot: the real daemon and proxy, the
 * example game (Crate Stack, whose kit publishes its menu), headless Chromium on the page. The
 * tree is collapsed until opened, then holds the snapshot text with refs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call } from './helpers/mcp.js';
import { dashboardUrl } from './helpers/dashboard.js';
import { pairSuite } from './helpers/pair.js';
import { startBrowser, type BrowserHandle } from './helpers/browser.js';
import { freePort } from './helpers/ports.js';
import { EXAMPLE_GAME } from './helpers/procs.js';

const suite = pairSuite('gb-dash-ui-');
let chromium: BrowserHandle;

beforeAll(async () => {
  chromium = await startBrowser();
});

afterAll(async () => {
  await chromium?.close();
});

test("a game's card holds its UI tree collapsed, showing the snapshot text once opened", async () => {
  const dir = join(suite.home, 'project');
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  writeFileSync(
    join(dir, 'gamebridge.json'),
    JSON.stringify({
      name: 'Crate Stack',
      launch: {
        command: `node "${EXAMPLE_GAME}" --port {port} --screenshot`,
        portRange: String(port),
        readyTimeoutMs: 30000,
      },
    }),
  );
  const h = await suite.open(dir);
  const launched = await call(h, 'launch_instance', {}, 60000);
  expect(launched.isError ? launched.text : 'launched').toBe('launched');
  suite.trackGroup(launched.json.pid as number);
  const page = await (await chromium.browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto(await dashboardUrl(suite.home));
  const tree = page.locator(`article.card[data-port="${port}"] details.ui-tree`);
  await page.locator(`article.card[data-port="${port}"] details.ui-tree:not([hidden])`).waitFor({ timeout: 15000 });
  expect(await tree.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
  // closed, it is not read again, so it names no revision that may be old by now
  await expect(tree.locator('summary').textContent()).resolves.toBe('UI tree');
  await tree.locator('summary').click();
  await page.waitForFunction(
    (p) =>
      (document.querySelector(`article.card[data-port="${p}"] details.ui-tree pre`)?.textContent ?? '').includes(
        '[ref=start]',
      ),
    port,
    { timeout: 15000 },
  );
  const text = await tree.locator('pre').textContent();
  expect(text).toMatch(/^MenuScreen · ui revision \d+/);
  expect(text).toContain('- button "Start" [ref=start]');
  // the summary changes in a toggle event, which comes after the click
  const untilSummary = (pattern: string) =>
    page.waitForFunction(
      ([p, re]) =>
        new RegExp(re).test(
          document.querySelector(`article.card[data-port="${p}"] details.ui-tree summary`)?.textContent ?? '',
        ),
      [String(port), pattern] as const,
      { timeout: 5000 },
    );
  // open, it names the revision of the text it shows
  await untilSummary('^UI tree · revision \\d+$');
  await tree.locator('summary').click();
  await untilSummary('^UI tree$');
  // the session's view is named beside it
  await page.waitForFunction(() => (document.body.textContent ?? '').includes('debug view'), undefined, {
    timeout: 10000,
  });
  // KEEP_SHOT=file.png keeps a picture of the card, to look at
  if (process.env.KEEP_SHOT)
    writeFileSync(process.env.KEEP_SHOT, await page.locator(`article.card[data-port="${port}"]`).screenshot());
}, 90000);
