/**
 * The dashboard's skills panel (docs/DASHBOARD.md): a skill made from an agent's calls picked in
 * the feed, run through the form with each step's answer shown, and deleted, all through
 * call_tool's checks. The real daemon and proxy, Crate Stack launched from a project, headless
 * Chromium on the page.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, gameCall } from './helpers/mcp.js';
import { dashboardUrl } from './helpers/dashboard.js';
import { pairSuite } from './helpers/pair.js';
import { startBrowser, type BrowserHandle } from './helpers/browser.js';
import { freePort } from './helpers/ports.js';
import { writeProject } from './helpers/project.js';
import type { Locator, Page } from 'playwright-core';

// one home, game and page for the panel's steps, each test the next step
const suite = pairSuite('gb-dash-skills-', {}, 'describe');
let chromium: BrowserHandle;

beforeAll(async () => {
  chromium = await startBrowser();
});

afterAll(async () => {
  await chromium?.close();
});

describe('the skills panel', () => {
  let page: Page;
  let row: Locator;
  let file: string;

  beforeAll(async () => {
    const project = writeProject(join(suite.home, 'project'), { ports: [await freePort()] });
    const h = await suite.open(project.root);
    const launched = await call(h, 'launch_instance', {}, 60000);
    expect(launched.isError ? launched.text : 'launched').toBe('launched');
    suite.trackGroup(launched.json.pid as number);
    const port = launched.json.port as number;
    expect((await gameCall(h, port, 'start')).isError).toBe(false);
    expect((await gameCall(h, port, 'drop', { x: 30, settle: false })).isError).toBe(false);
    page = await (await chromium.browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    await page.goto(await dashboardUrl(suite.home));
    row = page.locator('#skills li[data-skill="start-drop"]');
    file = join(project.root, 'gamebridge-skills', 'start-drop.json');
  }, 120000);

  test('keeps a skill of calls picked in the feed', async () => {
    const picks = page.locator('#skill-picks label.pick');
    await picks.filter({ hasText: 'drop' }).waitFor({ timeout: 20000 });
    await picks.filter({ hasText: 'start' }).locator('input').check();
    await picks.filter({ hasText: 'drop' }).locator('input').check();
    await page.fill('#skill-name', 'start-drop');
    await page.fill('#skill-description', 'Start a round and drop a crate at 30.');
    await page.click('#skill-create');
    await row.waitFor({ timeout: 20000 });
    expect(JSON.parse(readFileSync(file, 'utf8')).steps).toEqual([
      { do: 'call_tool', name: 'start', arguments: {} },
      { do: 'call_tool', name: 'drop', arguments: { x: 30, settle: false } },
    ]);
    // a name the game already has is refused with define_skill's own words
    await page.fill('#skill-name', 'drop');
    await page.click('#skill-create');
    await page.waitForFunction(
      () => /already a tool of this game/.test(document.querySelector('#skill-answer')?.textContent ?? ''),
      undefined,
      { timeout: 20000 },
    );
  });

  test('runs a kept skill showing each step', async () => {
    await row.locator('button.skill-run').click();
    expect(await page.locator('#try-tool').inputValue()).toBe('start-drop');
    await page.click('#try-run');
    await page.waitForFunction(
      () => /"via": "skill"/.test(document.querySelector('#try-answer pre')?.textContent ?? ''),
      undefined,
      { timeout: 20000 },
    );
    const answer = (await page.locator('#try-answer pre').textContent()) ?? '';
    expect(answer).toMatch(/"did": "start"[\s\S]*"did": "drop"/);
    if (process.env.KEEP_SHOT) {
      mkdirSync(join(process.env.KEEP_SHOT, '..'), { recursive: true });
      writeFileSync(process.env.KEEP_SHOT, await page.locator('.side').screenshot());
    }
  });

  test('deletes a kept skill', async () => {
    await row.locator('button.skill-delete').click();
    await row.waitFor({ state: 'detached', timeout: 20000 });
    expect(existsSync(file)).toBe(false);
  });
});
