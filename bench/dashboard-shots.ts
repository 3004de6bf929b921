#!/usr/bin/env node
/**
 * The dashboard's screenshots for docs/DASHBOARD.md, taken as a person would see the page: two
 * clients (named as real ones would be), two launched games being played, one that exited, a
 * few calls including a refused one, and the form's answer. Writes PNGs at 1280×800 (light and
 * dark) and 390×844 into the directory given (default docs/img).
 *
 *   npm run build && node dist/bench/dashboard-shots.js [out-dir]
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { dashboardUrl, startBrowser } from './browser.js';
import { gameProject } from './dashboard.js';
import { connectMcp, DIST, freeRange, log, Reaper, sleep } from './harness.js';

async function main(): Promise<void> {
  const out = resolve(process.argv[2] ?? join(DIST, '..', 'docs', 'img'));
  mkdirSync(out, { recursive: true });
  const r = new Reaper();
  try {
    const home = r.home('gb-shots-');
    const [p1, p2, p3] = await freeRange(3);
    const claude = await connectMcp(r, 'proxy', home, [], gameProject(r, p1), {
      name: 'claude-code',
      version: '2.1.4',
    });
    const cursor = await connectMcp(r, 'proxy', home, [], gameProject(r, p2, 'Orbital Freight'), {
      name: 'cursor-vscode',
      version: '1.6.0',
    });
    const third = await connectMcp(r, 'proxy', home, [], gameProject(r, p3, 'Crate Stack (server)'), {
      name: 'claude-code',
      version: '2.1.4',
    });
    await claude.call('launch_instance', {});
    await cursor.call('launch_instance', {});
    await third.call('launch_instance', {});
    let thirdRunning = true;

    const chromium = await startBrowser(r);
    try {
      const shoot = async (
        name: string,
        width: number,
        height: number,
        dark: boolean,
        act?: (page: import('playwright-core').Page) => Promise<void>,
      ) => {
        const context = await chromium.browser.newContext({
          viewport: { width, height },
          colorScheme: dark ? 'dark' : 'light',
          deviceScaleFactor: 1,
        });
        const page = await context.newPage();
        await page.goto(await dashboardUrl(home));
        await page.locator(`article.card[data-port="${p1}"][data-status="live"]`).waitFor({ timeout: 15000 });
        if (thirdRunning) {
          // ends while the page watches: the dashboard keeps its exit
          await third.call('call_tool', { port: p3, name: 'close' });
          await third.close();
          thirdRunning = false;
          await page.locator(`article.card[data-port="${p3}"][data-status="exited"]`).waitFor({ timeout: 15000 });
        }
        await play(claude, cursor, p1, p2);
        await page.evaluate(() => window.scrollTo(0, 0));
        if (act) await act(page);
        await sleep(1500); // frame rates need two /health answers; the feed's highlight fades
        await page.screenshot({ path: join(out, name) });
        log(`wrote ${join(out, name)}`);
        await context.close();
      };
      await shoot('dashboard-1280.png', 1280, 800, false, async (page) => {
        await page.locator('#try-port').selectOption(String(p1));
        await page.locator('#try-tool:not([disabled])').waitFor();
        await page.locator('#try-tool').selectOption('play.drop');
        await page.locator('#try-fields input[name="x"]').fill('42');
        await page.locator('#try-run').click();
        await page.locator('#try-answer .badge').waitFor();
        await page.evaluate(() => window.scrollTo(0, 0));
      });
      await shoot('dashboard-1280-dark.png', 1280, 800, true, async (page) => {
        await page.locator('#feed li.call[data-ok="false"] summary').first().click();
        await page.locator('#feed li.call[data-ok="false"] pre.json').first().waitFor();
        // the feed and the opened call under the sticky header
        await page.evaluate(() =>
          window.scrollTo(0, document.getElementById('h-feed')!.getBoundingClientRect().top + window.scrollY - 70),
        );
      });
      await shoot('dashboard-390.png', 390, 844, false);
    } finally {
      await chromium.close();
    }
  } finally {
    await r.reap();
  }
}

/** A few calls of each kind, as two agents playing would make them. */
async function play(
  claude: Awaited<ReturnType<typeof connectMcp>>,
  cursor: Awaited<ReturnType<typeof connectMcp>>,
  p1: number,
  p2: number,
): Promise<void> {
  await claude.call('list_toolsets', { port: p1 });
  await claude.call('call_tool', { port: p1, name: 'start' });
  for (const x of [20, 48, 75]) await claude.call('call_tool', { port: p1, name: 'drop', arguments: { x } });
  await claude.call('call_tool', { port: p1, name: 'get_state', arguments: { path: 'game.score' } });
  await cursor.call('call_tool', { port: p2, name: 'start' });
  await cursor.client
    .callTool({ name: 'call_tool', arguments: { port: p2, name: 'warp', arguments: { to: 'moon' } } })
    .catch(() => undefined);
  await cursor.call('call_tool', { port: p2, name: 'drop', arguments: { x: 60 } });
}

main().catch((e) => {
  process.stderr.write(`dashboard-shots: ${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
