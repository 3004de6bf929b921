/**
 * A canvas game without the kit that draws from every source of chance a page has
 * (test/fixtures/web-pages/dice.html), through the real proxy + daemon, the SDK client and
 * Debian's Chromium. Launched without a seed, it runs on one the bridge picked, which the
 * launch's answer, the state and a saved test carry, so the test's replays deal the same dice;
 * its snapshot names the canvas as one node whose box is where the screenshot shows it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { cleanedAfterAll, gameCall, launchWebGame, type WebGameRun } from './helpers/mcp.js';
import { colourBox, decodePng } from './helpers/png.js';
import { bridgeFreeEnv, ROOT, runCli } from './helpers/procs.js';

jest.setTimeout(240_000);

const PAGES = join(ROOT, 'test', 'fixtures', 'web-pages');
const cleanup = cleanedAfterAll();
let run: WebGameRun;

beforeAll(async () => {
  run = await launchWebGame({
    prefix: 'gb-dice-',
    name: 'Dice',
    web: { static: PAGES, url: 'dice.html', kit: false },
    ports: 4,
    cleanup,
  });
});

const call = (name: string, args: Record<string, unknown> = {}, timeout?: number) =>
  gameCall(run.h, run.port, name, args, timeout);

describe('launched without a seed', () => {
  test('the launch answers the seed the bridge picked for the page', () => {
    expect(run.launched.seed).toMatch(/^[0-9a-f]{8}$/);
  });

  test("the page's state carries the seed it was launched with", async () => {
    const seed = (await call('get_state', { path: 'seed' })).json.value;
    expect(typeof seed).toBe('string');
    expect(seed).toBe(run.launched.seed);
  });
});

describe('a session on an unseeded launch, saved as a test', () => {
  let dealt: { rolls: number[]; bytes: number[]; ids: string[] };
  let file = '';

  beforeAll(async () => {
    // paused, so the test is frame-exact and its replays step rather than wait out the gaps
    await call('pause');
    for (let i = 0; i < 3; i++) await call('press', { input: 'ArrowUp', frames: 1 });
    dealt = (await call('get_state', { path: 'game' })).json.value;
    for (const [key, value] of Object.entries(dealt)) {
      const held = await call('assert', { path: `game.${key}`, equals: value });
      if (held.isError) throw new Error(held.text);
    }
    const saved = await call('save_test', { name: 'dice' });
    if (saved.isError) throw new Error(saved.text);
    file = saved.json.path;
    await call('resume');
  });

  test('drew a die as it loaded and one with bytes and an id on each key', () => {
    expect(dealt.rolls).toHaveLength(4);
    expect(dealt.bytes).toHaveLength(12);
    expect(dealt.ids).toHaveLength(3);
  });

  test("the saved test's header carries the seed the bridge picked", () => {
    const header = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]);
    expect(typeof header.launch.seed).toBe('string');
    expect(header.launch.seed).toBe(run.launched.seed);
  });

  test('run_test replays it twice with the same dice', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await call('run_test', { name: 'dice' }, 180_000);
      expect(r.json).toMatchObject({ passed: true, name: 'dice', timing: 'frame-exact' });
    }
  });

  test('game-bridge-mcp test replays it twice with the same dice', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['test', file], {
        cwd: run.project,
        env: bridgeFreeEnv({ GAME_BRIDGE_HOME: run.home, GAME_BRIDGE_IDLE_EXIT_MS: '120000' }),
      });
      expect(r.out).toMatch(/^✓ dice \(/);
      expect(r.code).toBe(0);
    }
  });
});

describe("the canvas in the page's snapshot", () => {
  type Node = { id: string; role: string; name: string; rect?: number[]; children?: Node[] };
  const flat = (nodes: Node[]): Node[] => nodes.flatMap((n) => [n, ...flat(n.children ?? [])]);
  let snap: Awaited<ReturnType<typeof call>>;
  let canvases: Node[];

  beforeAll(async () => {
    snap = await call('snapshot');
    canvases = flat(snap.json.nodes).filter((n) => n.role === 'canvas');
  });

  test('is one node, without the fallback text inside it', () => {
    expect(canvases).toHaveLength(1);
    expect(canvases[0]).toMatchObject({ id: expect.stringMatching(/^dom-\d+$/), name: '' });
    expect(canvases[0].children).toBeUndefined();
    expect(snap.text).not.toContain('support HTML5');
  });

  test('has the box the screenshot shows it in', async () => {
    const shot = await call('screenshot');
    const png = decodePng(Buffer.from((shot.res.content as any[])[1].data, 'base64'));
    const painted = colourBox(png, [255, 0, 255]);
    expect(painted).toEqual([37, 53, 300, 150]);
    expect(canvases[0].rect).toEqual(painted);
  });

  test("gives its box in the snapshot's text", () => {
    const { id, rect } = canvases[0];
    expect(snap.text.split('\n')).toContain(`- canvas [ref=${id}] box=[${rect!.join(',')}]`);
  });
});
