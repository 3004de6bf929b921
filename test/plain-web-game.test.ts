/**
 * The example web game without the kit (examples/plain-web-game, Apple Drop), walked as
 * docs/BROWSER.md's "Any web game, unmodified" tells a newcomer: `init --web www --no-kit` writes
 * its declaration, then through the real proxy + daemon, the SDK client and Debian's Chromium:
 * launch, snapshot, pause, press, step, click, save_test, and `game-bridge-mcp test` replaying it.
 */
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { call, cleanedAfterAll, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { bridgeFreeEnv, DIST, ROOT, runCli, tempHome } from './helpers/procs.js';

jest.setTimeout(300_000);

const EXAMPLE = join(ROOT, 'examples', 'plain-web-game');
const cleanup = cleanedAfterAll();
let home = '';
let project = '';
let h: McpHandle;
let port = 0;

const game = async () => (await gameCall(h, port, 'get_state', { path: 'game' })).json.value;
const play = async (name: string, args: Record<string, unknown> = {}) => {
  const r = await gameCall(h, port, name, args, 60_000);
  if (r.isError) throw new Error(`${name}: ${r.text}`);
  return r;
};

beforeAll(async () => {
  home = tempHome('gb-plainweb-');
  cleanup.homes.push(home);
  project = join(home, 'apple-drop');
  const [first] = await freeRange(4);
  const init = await runCli(
    ['init', '--dir', project, '--web', 'www', '--no-kit', '--name', 'Apple Drop', '--no-register'].concat([
      '--port-range',
      `${first}-${first + 3}`,
    ]),
    { cwd: home, env: bridgeFreeEnv({ GAME_BRIDGE_HOME: home }) },
  );
  if (init.code !== 0) throw new Error(`init: ${init.err}`);
  cpSync(join(DIST, 'examples', 'plain-web-game', 'www'), join(project, 'www'), { recursive: true });
  h = await connect({ env: { GAME_BRIDGE_HOME: home }, cwd: project, args: ['--no-scan', '--timeout', '20000'] });
  cleanup.handles.push(h);
});

test("the example's declaration is what init --web www --no-kit writes, and its page has no kit", () => {
  const written = JSON.parse(readFileSync(join(project, 'gamebridge.json'), 'utf8'));
  const example = JSON.parse(readFileSync(join(EXAMPLE, 'gamebridge.json'), 'utf8'));
  expect(written).toMatchObject({ name: 'Apple Drop', launch: { web: { static: 'www', kit: false } } });
  const { $schema: _schema, ...rest } = written;
  expect({ ...rest, launch: { ...rest.launch, portRange: '7820-7839' } }).toEqual(example);
  expect(existsSync(join(DIST, 'examples', 'plain-web-game', 'www', 'gamebridge.js'))).toBe(false);
  expect(readFileSync(join(EXAMPLE, 'www', 'index.html'), 'utf8')).not.toMatch(/gamebridge|createGameSurface/);
});

describe("the newcomer's walk", () => {
  let saved = '';
  let basketAfterClick = 0;

  beforeAll(async () => {
    const launched = await call(h, 'launch_instance', {}, 120_000);
    if (launched.isError) throw new Error(launched.text);
    port = launched.json.port;
  });

  test('snapshot names the button and the canvas with its box', async () => {
    const snap = await play('snapshot');
    expect(snap.text).toMatch(/- button "New game" \[ref=dom-\d+\]/);
    expect(snap.text).toMatch(/- canvas "orchard" \[ref=dom-\d+\] box=\[\d+,\d+,320,240\]/);
    expect(await game()).toMatchObject({ score: 0, lives: 3, basketX: 160 });
  });

  test('paused, a press of 30 frames moves the basket 3 pixels a frame, and a step runs exactly 60 frames', async () => {
    await play('pause');
    const before = await game();
    await play('press', { input: 'ArrowRight', frames: 30 });
    const pressed = await game();
    expect(pressed.basketX - before.basketX).toBe(90);
    await play('step', { frames: 60 });
    const stepped = await game();
    expect(stepped.frames - pressed.frames).toBe(60);
    expect(stepped.basketX).toBe(pressed.basketX);
  });

  test('a click on the orchard puts the basket under the pointer; New game starts again', async () => {
    type Node = { role: string; name: string; id: string; rect: number[]; children?: Node[] };
    const flat = (ns: Node[]): Node[] => ns.flatMap((n) => [n, ...flat(n.children ?? [])]);
    const nodes = flat((await play('snapshot')).json.nodes);
    const [x, y] = nodes.find((n) => n.role === 'canvas')!.rect;
    await play('pointer', { action: 'click', x: x + 40, y: y + 200 });
    basketAfterClick = (await game()).basketX;
    expect(basketAfterClick).toBe(40);
    await play('click', { ref: nodes.find((n) => n.name === 'New game')!.id });
    expect(await game()).toMatchObject({ score: 0, lives: 3, frames: 0, basketX: 160 });
  });

  test('a session played from a launch is saved as a test that game-bridge-mcp test replays', async () => {
    const launched = await call(h, 'launch_instance', { restart: port, paused: true }, 120_000);
    if (launched.isError) throw new Error(launched.text);
    await play('press', { input: 'ArrowLeft', frames: 20 });
    await play('step', { frames: 240 });
    const end = await game();
    expect(end.apples.length + end.score + (3 - end.lives)).toBeGreaterThan(0);
    await play('assert', { path: 'game.apples', equals: end.apples });
    await play('assert', { path: 'game.basketX', equals: end.basketX });
    saved = (await play('save_test', { name: 'apples' })).json.path;
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['test', saved], {
        cwd: project,
        env: bridgeFreeEnv({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '120000' }),
      });
      expect(r.out).toMatch(/^✓ apples \(/);
      expect(r.code).toBe(0);
    }
  });
});
