/**
 * What the dashboard tells a person at a glance, in real Chromium against a real daemon, real
 * proxies and two example games: one left by a session that ended, one the only session plays.
 * The form picks the game being played, a paused game says so, a screenshot opens large enough
 * to read, and the feed tells a check that did not hold from a call that broke.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startBrowser, type BrowserHandle } from './helpers/browser.js';
import { dashboardUrl } from './helpers/dashboard.js';
import { call, gameCall, type McpHandle } from './helpers/mcp.js';
import { pairSuite } from './helpers/pair.js';
import { freeRange } from './helpers/ports.js';
import { EXAMPLE_GAME } from './helpers/procs.js';

const suite = pairSuite('gb-dash-views-', {}, 'describe');
let chromium: BrowserHandle;
let page: Page;
let player: McpHandle;
/** the game whose session ended, listed first; the game the only session plays */
let left: number;
let played: number;

/** A project of its own launching the example game on `port`. */
async function launchFrom(name: string, port: number, args: string): Promise<McpHandle> {
  const dir = join(suite.home, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'gamebridge.json'),
    JSON.stringify({
      name: 'Crate Stack',
      launch: {
        command: `node "${EXAMPLE_GAME}" --port {port} ${args}`,
        portRange: String(port),
        readyTimeoutMs: 30000,
      },
    }),
  );
  const h = await suite.open(dir);
  const launched = await call(h, 'launch_instance', {}, 60000);
  expect(launched.isError ? launched.text : 'launched').toBe('launched');
  suite.trackGroup(launched.json.pid as number);
  return h;
}

const card = (port: number) => page.locator(`article.card[data-port="${port}"]`);
const fact = (port: number, name: string) =>
  card(port)
    .locator('dl div', { has: page.locator(`dt:text-is("${name}")`) })
    .locator('dd');

beforeAll(async () => {
  chromium = await startBrowser();
  [left, played] = await freeRange(2);
  await (await launchFrom('left', left, '')).close();
  player = await launchFrom('played', played, '--screenshot');
  page = await (await chromium.browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto(await dashboardUrl(suite.home));
  await card(played).locator('figure.shot:not([hidden]) img').waitFor({ timeout: 15000 });
}, 120000);

afterAll(async () => {
  await chromium?.close();
});

test('"Try a tool" picks the game the only session plays, not the first one listed', async () => {
  await page.waitForFunction(() => document.querySelectorAll('#try-port option').length === 2, null, {
    timeout: 10000,
  });
  expect(await page.locator('#try-port option').first().getAttribute('value')).toBe(String(left));
  await expect(page.locator('#try-port').inputValue()).resolves.toBe(String(played));
});

test('a paused game says paused in its badge and where its frame rate was', async () => {
  expect((await gameCall(player, played, 'bridge.pause')).isError).toBe(false);
  await card(played).locator('.badge', { hasText: 'paused' }).waitFor({ timeout: 10000 });
  await expect(card(played).locator('.badge').textContent()).resolves.toBe('Live · paused');
  await expect(fact(played, 'FPS').textContent()).resolves.toBe('paused');
  expect((await gameCall(player, played, 'bridge.resume')).isError).toBe(false);
  await card(played)
    .locator('.badge', { hasText: /^Live$/ })
    .waitFor({ timeout: 10000 });
  await expect(fact(played, 'FPS').textContent()).resolves.toMatch(/^\d+\.\d$/);
});

test('a click on a screenshot shows it large enough to read, scaled by a whole factor', async () => {
  await card(played).locator('figure.shot img').click();
  const zoom = page.locator('#shot-zoom');
  await expect(zoom.evaluate((d: HTMLDialogElement) => d.open)).resolves.toBe(true);
  await page.waitForFunction(() => (document.getElementById('shot-zoom-img') as HTMLImageElement).naturalWidth > 0);
  const [shown, natural] = await page
    .locator('#shot-zoom-img')
    .evaluate((img: HTMLImageElement) => [img.getBoundingClientRect().width, img.naturalWidth]);
  expect(shown / natural).toBeGreaterThanOrEqual(2);
  expect(Number.isInteger(Math.round(shown) / natural)).toBe(true);
  await page.keyboard.press('Escape');
  await expect(zoom.evaluate((d: HTMLDialogElement) => d.open)).resolves.toBe(false);
});

test("a check that did not hold and a game's missing screenshots are answers in the feed, not failures", async () => {
  const waited = await gameCall(player, played, 'wait_for', { path: 'game.score', equals: 99, timeoutMs: 300 });
  expect(waited.text).toMatch(/^CommandTimeout: /);
  const asserted = await gameCall(player, played, 'assert', { path: 'game.score', equals: 99 });
  expect(asserted.text).toMatch(/^AssertionFailed: /);
  const shot = await gameCall(player, left, 'screenshot');
  expect(shot.text).toMatch(/^CapabilityMissing: /);
  expect((await gameCall(player, played, 'no_such_tool')).text).toMatch(/^CommandRejected: /);
  const badge = (tool: string) => page.locator(`#feed li.call[data-tool="${tool}"] .badge`).first();
  await badge('no_such_tool').waitFor({ timeout: 5000 });
  const seen = async (tool: string) => [await badge(tool).getAttribute('class'), await badge(tool).textContent()];
  await expect(seen('wait_for')).resolves.toEqual(['badge s-quiet', 'Not met']);
  await expect(seen('assert')).resolves.toEqual(['badge s-quiet', 'Not met']);
  await expect(seen('screenshot')).resolves.toEqual(['badge s-quiet', 'No screenshots']);
  await expect(seen('no_such_tool')).resolves.toEqual(['badge s-bad', 'CommandRejected']);
  // "Errors only" keeps what broke and leaves out the answers
  await page.locator('#errors-only').check();
  const visible = await page
    .locator('#feed li.call:not([hidden])')
    .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.tool));
  expect(visible).toEqual(['no_such_tool']);
});

test('a game that threw shows how many errors it raised', async () => {
  await expect(fact(played, 'Errors').textContent()).resolves.toBe('0');
  expect((await gameCall(player, played, 'throw_error', { message: 'dashboard' })).isError).toBe(true);
  await card(played)
    .locator('dl div', { has: page.locator('dt:text-is("Errors")') })
    .locator('dd', { hasText: /^1$/ })
    .waitFor({ timeout: 10000 });
});
