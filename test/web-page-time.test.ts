/**
 * Time inside a page's own code, on the bridge's clock (docs/BROWSER.md, "The page's clock"):
 * a page written here with no bridge code (test/fixtures/web-pages/search.html) whose buttons
 * spend time budgets, as game AIs and busy waits do. Through the real proxy + daemon, the SDK
 * client and Debian's Chromium: each button's handler ends, draws what it did, and does the
 * same on every run, paused or running.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { call, cleanedAfterAll, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { ROOT, tempHome } from './helpers/procs.js';

jest.setTimeout(240_000);

const PAGES = join(ROOT, 'test', 'fixtures', 'web-pages');
const cleanup = cleanedAfterAll();
let h: McpHandle;

beforeAll(async () => {
  const home = tempHome('gb-pagetime-');
  cleanup.homes.push(home);
  const project = join(home, 'project');
  mkdirSync(project);
  const [first] = await freeRange(4);
  writeFileSync(
    join(project, 'gamebridge.json'),
    JSON.stringify({
      name: 'Thinker',
      launch: {
        portRange: `${first}-${first + 3}`,
        readyTimeoutMs: 90_000,
        web: { static: PAGES, url: 'search.html', kit: false },
      },
    }),
  );
  h = await connect({ env: { GAME_BRIDGE_HOME: home }, cwd: project, args: ['--no-scan', '--timeout', '20000'] });
  cleanup.handles.push(h);
});

const result = async (port: number) =>
  /- paragraph: (.*)|- text "(.*)"/.exec(
    (await gameCall(h, port, 'snapshot')).text.split('\n').find((l) => /thought|waited|idle/.test(l)) ?? '',
  );
const said = async (port: number) => {
  const m = await result(port);
  return m?.[1] ?? m?.[2] ?? '';
};
const refOf = async (port: number, name: string) =>
  /\[ref=(dom-\d+)\]/.exec(
    (await gameCall(h, port, 'snapshot')).text.split('\n').find((l) => l.includes(`button "${name}"`))!,
  )![1];

/** One run of the page: Think clicked twice, running or paused; what it drew each time. */
async function thinkTwice(paused: boolean): Promise<string[]> {
  const launched = await call(h, 'launch_instance', { paused }, 120_000);
  if (launched.isError) throw new Error(launched.text);
  const port = launched.json.port as number;
  try {
    const seen: string[] = [];
    for (let i = 0; i < 2; i++) {
      const click = await gameCall(h, port, 'click', { ref: await refOf(port, 'Think') }, 60_000);
      expect(click.isError).toBe(false);
      seen.push(await said(port));
    }
    const shot = await gameCall(h, port, 'screenshot');
    expect(shot.isError).toBe(false);
    return seen;
  } finally {
    await call(h, 'stop_instance', { port });
  }
}

test('a handler that deepens a search until 100 ms of Date time are spent answers with its result drawn, the same running and paused, run after run', async () => {
  const running = await thinkTwice(false);
  expect(running[0]).toMatch(/^thought to depth \d+: best \d+$/);
  expect(running[1]).toMatch(/^thought to depth \d+: best \d+$/);
  expect(await thinkTwice(false)).toEqual(running);
  expect(await thinkTwice(true)).toEqual(running);
  expect(await thinkTwice(true)).toEqual(running);
});

test('a busy wait on performance.now() for 50 ms ends', async () => {
  const launched = await call(h, 'launch_instance', {}, 120_000);
  const port = launched.json.port as number;
  try {
    const click = await gameCall(h, port, 'click', { ref: await refOf(port, 'Wait') }, 60_000);
    expect(click.isError).toBe(false);
    const m = /^waited (\d+) ms in (\d+) reads$/.exec(await said(port));
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThanOrEqual(50);
  } finally {
    await call(h, 'stop_instance', { port });
  }
});
