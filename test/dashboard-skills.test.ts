/**
 * The dashboard's skills panel (docs/DASHBOARD.md): a skill made from an agent's calls picked in
 * the feed, run through the form with each step's answer shown, its description and arguments
 * edited, and deleted, all through call_tool's checks. The real daemon and proxy, Crate Stack launched from a project, headless
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
  let h: Awaited<ReturnType<typeof suite.open>>;
  let port: number;

  beforeAll(async () => {
    const project = writeProject(join(suite.home, 'project'), { ports: [await freePort()] });
    h = await suite.open(project.root);
    const launched = await call(h, 'launch_instance', {}, 60000);
    expect(launched.isError ? launched.text : 'launched').toBe('launched');
    suite.trackGroup(launched.json.pid as number);
    port = launched.json.port as number;
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

  describe('the edit form', () => {
    const edit = (name: string) => page.locator(`#skills li[data-skill="${name}"] button.skill-edit`).click();
    const answer = (re: RegExp) =>
      page.waitForFunction(
        (src) => new RegExp(src).test(document.querySelector('#skill-edit-answer')?.textContent ?? ''),
        re.source,
        { timeout: 20000 },
      );
    const dropAt = () => join(suite.home, 'project', 'gamebridge-skills', 'drop-at.json');

    beforeAll(async () => {
      const d = await gameCall(h, port, 'define_skill', {
        name: 'drop-at',
        description: 'Drop a crate at x.',
        args: [{ name: 'x', type: 'number', default: 30 }],
        steps: [{ do: 'call_tool', name: 'drop', arguments: { x: '${x}', settle: false } }],
      });
      expect(d.isError ? d.text : 'kept').toBe('kept');
      // a skill kept over MCP shows when the game is picked again
      await page.selectOption('#try-port', String(port));
      await page.locator('#skills li[data-skill="drop-at"]').waitFor({ timeout: 20000 });
    }, 60000);

    test("shows a skill's description, arguments and steps as its file holds them", async () => {
      await edit('drop-at');
      await page.locator('#skill-edit').waitFor({ state: 'visible', timeout: 20000 });
      expect(await page.locator('#skill-edit-file').textContent()).toBe(dropAt());
      expect(await page.inputValue('#skill-edit-description')).toBe('Drop a crate at x.');
      const arg = page.locator('#skill-edit-args .arg-row');
      expect(await arg.count()).toBe(1);
      expect(await arg.locator('.arg-name').inputValue()).toBe('x');
      expect(await arg.locator('.arg-type').inputValue()).toBe('number');
      expect(await arg.locator('.arg-default').inputValue()).toBe('30');
      expect(await page.locator('#skill-edit-steps').textContent()).toContain('"x": "${x}"');
    });

    test('refuses an argument its steps still use being removed, naming the step, and keeps the file', async () => {
      const before = readFileSync(dropAt(), 'utf8');
      await page.locator('#skill-edit-args .arg-row .arg-remove').click();
      await page.click('#skill-edit-save');
      await answer(/Refused[\s\S]*step 1: \$\{x\} is not an argument of the skill/);
      expect(readFileSync(dropAt(), 'utf8')).toBe(before);
      if (process.env.KEEP_SHOT)
        writeFileSync(
          process.env.KEEP_SHOT.replace(/(\.png)?$/, '-refused.png'),
          await page.locator('#skill-edit').screenshot(),
        );
    });

    test('saves a new description and arguments through define_skill, a renamed one renamed in the steps', async () => {
      await edit('drop-at'); // read afresh: the refused edit is gone
      await page.locator('#skill-edit-args .arg-row').waitFor({ timeout: 20000 });
      await page.fill('#skill-edit-description', 'Drop a crate where asked.');
      const x = page.locator('#skill-edit-args .arg-row').first();
      await x.locator('.arg-name').fill('where');
      await x.locator('.arg-description').fill('Where to drop it, in pixels from the left.');
      await x.locator('.arg-required').check();
      await page.click('#skill-edit-add');
      const n = page.locator('#skill-edit-args .arg-row').nth(1);
      await n.locator('.arg-name').fill('label');
      await n.locator('.arg-type').selectOption('string');
      await n.locator('.arg-default').fill('first crate');
      if (process.env.KEEP_SHOT) {
        mkdirSync(join(process.env.KEEP_SHOT, '..'), { recursive: true });
        writeFileSync(
          process.env.KEEP_SHOT.replace(/(\.png)?$/, '-edit.png'),
          await page.locator('#skill-edit').screenshot(),
        );
      }
      await page.click('#skill-edit-save');
      await answer(/Saved/);
      expect(JSON.parse(readFileSync(dropAt(), 'utf8'))).toMatchObject({
        description: 'Drop a crate where asked.',
        args: [
          {
            name: 'where',
            type: 'number',
            description: 'Where to drop it, in pixels from the left.',
            required: true,
            default: 30,
          },
          { name: 'label', type: 'string', default: 'first crate' },
        ],
        steps: [{ do: 'call_tool', name: 'drop', arguments: { x: '${where}', settle: false } }],
      });
      await page
        .locator('#skills li[data-skill="drop-at"] .tool-doc', { hasText: 'Drop a crate where asked.' })
        .waitFor({ timeout: 20000 });
    });
  });

  test('lists a skill another client defines, without a reload', async () => {
    const r = await gameCall(h, port, 'define_skill', {
      name: 'peek-twice',
      description: 'Read the state twice.',
      steps: [
        { do: 'call_tool', name: 'get_state', arguments: {} },
        { do: 'call_tool', name: 'get_state', arguments: {} },
      ],
    });
    expect(r.isError ? r.text : 'kept').toBe('kept');
    await page.locator('#skills li[data-skill="peek-twice"]').waitFor({ timeout: 20000 });
  });

  test('deletes a kept skill', async () => {
    await row.locator('button.skill-delete').click();
    await row.waitFor({ state: 'detached', timeout: 20000 });
    expect(existsSync(file)).toBe(false);
  });
});
