/**
 * The Godot 3 kit (kits/godot3/GameBridge.gd) beyond the conformance suite (conformance.test.ts
 * runs the contract on its example, examples/godot-game, headless): start-up and packaging, and
 * world objects taken from a scene group with no tree code in the game, the headless build,
 * which gives no frames, and the example filmed where it draws: a step's answer and its
 * screenshot show the same frame, and `watch` steps and labels its frames.
 */
import { realpathSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { call, connect, gameCall, type McpHandle } from '../helpers/mcp.js';
import { decodePng } from '../helpers/png.js';
import { freePort } from '../helpers/ports.js';
import { ROOT, Reaper, exitCode, removeDir, tempHome, waitFor } from '../helpers/procs.js';
import {
  GODOT_EXAMPLE,
  GODOT_READY_MS,
  applied,
  describeIfRuntime,
  getJson,
  killWithHome,
  spawnKitGame,
  startKitGame,
  untilState,
} from './kit-game.js';

describe('Godot 3 kit: start-up and packaging', () => {
  const reaper = new Reaper();
  const dirs: string[] = [];
  const dir = () => {
    const d = tempHome('gb-gdkit-');
    dirs.push(d);
    return d;
  };
  afterAll(async () => {
    await reaper.reap();
    dirs.forEach(removeDir);
  });

  test('the example runs the kit file itself (a link to kits/godot3; users copy the file the same way)', () => {
    expect(realpathSync(join(GODOT_EXAMPLE, 'GameBridge.gd'))).toBe(
      realpathSync(join(ROOT, 'kits', 'godot3', 'GameBridge.gd')),
    );
  });

  test(
    'a bad debug port is refused with a clear message and exit code 2',
    async () => {
      const { child, output } = spawnKitGame(reaper, 'godot', 'abc', dir());
      expect(await exitCode(child)).toBe(2);
      expect(output.text).toContain("GameBridge: --debug-port must be a port number (1-65535), got 'abc'");
    },
    GODOT_READY_MS,
  );

  test(
    'a port already in use is said on stderr and the game exits',
    async () => {
      const port = await freePort();
      const blocker = net.createServer().listen(port, '127.0.0.1');
      try {
        await new Promise((r) => blocker.once('listening', r));
        const { child, output } = spawnKitGame(reaper, 'godot', String(port), dir());
        expect(await exitCode(child)).toBe(1);
        expect(output.text).toContain(
          `GameBridge: cannot listen on 127.0.0.1:${port} (error 22: the port is probably in use); the game exits, since whatever holds the port would be taken for it`,
        );
      } finally {
        blocker.close();
      }
    },
    GODOT_READY_MS + 5000,
  );
});

/** Where the example draws the world's origin (Main.gd's VIEW), and the walker's half width. */
const VIEW = { x: 80, y: 320 };
const HALF = 8;

/** The walker's x in the world, read off a screenshot: the left edge of its blue square, on its row. */
function walkerX(png: Buffer): number | null {
  const img = decodePng(png);
  const y = VIEW.y - 8; // its centre, standing on the floor
  for (let x = 0; x < img.width; x++) {
    const i = (y * img.width + x) * img.channels;
    if (img.pixels[i] < 100 && img.pixels[i + 1] > 120 && img.pixels[i + 2] > 200) return x - VIEW.x + HALF;
  }
  return null;
}

describeIfRuntime('godot', () => {
  describe('Godot 3 kit: world objects from the scene', () => {
    const reaper = new Reaper();
    const home = tempHome('gb-gdworld-');
    afterAll(async () => {
      await reaper.reap();
      removeDir(home);
    });

    describe("the example's coins", () => {
      let port: number;
      const all = ['Main/Coin40', 'Main/Coin90', 'Main/Coin160', 'Main/Coin240', 'Main/Coin320'];
      const coins = async (): Promise<string[]> =>
        (await getJson(port, '/world')).objects.filter((o: any) => o.type === 'coin').map((o: any) => o.id);

      beforeAll(async () => {
        port = await freePort();
        await startKitGame(reaper, 'godot', port, home);
      }, GODOT_READY_MS + 5000);

      test('are world objects until the walker collects them', async () => {
        expect(await coins()).toEqual(all);
        await applied(port, 'teleport', { x: 36 });
        await applied(port, 'input.hold', { input: 'right', owner: 'test', leaseMs: 5000 });
        await untilState(port, 'coin 40 collected', (s) => s.game.coins.includes(40));
        await applied(port, 'input.release', { input: 'right', owner: 'test' });
        const left = await waitFor('coin 40 gone from /world', async () => {
          const c = await coins();
          return c.includes('Main/Coin40') ? null : c;
        });
        expect(left).toEqual(all.slice(1));
      });

      test('come back on reset', async () => {
        await applied(port, 'reset');
        await waitFor('five coins again', async () => (await coins()).length === 5);
        expect(await coins()).toEqual(all);
      });
    });
  });

  describe('Godot 3 kit on the headless build (godot3-server): no frames', () => {
    const home = tempHome('gb-gdheadless-');
    const dir = tempHome('gb-gdheadless-decl-');
    afterAll(() => {
      killWithHome(home);
      [home, dir].forEach(removeDir);
    });

    test(
      'GET /screenshot is 404 saying why, /health declares no screenshot, and the bridge answers CapabilityMissing naming it',
      async () => {
        // The example as its run.sh starts it where nothing can draw.
        writeFileSync(
          join(dir, 'gamebridge.json'),
          JSON.stringify({
            name: 'Walker (Godot, headless)',
            launch: {
              command: 'godot3-server --path . -- --debug-port={port}',
              cwd: GODOT_EXAMPLE,
              portRange: '7860-7879',
              readyTimeoutMs: GODOT_READY_MS,
              env: { LANG: 'en_US.UTF-8' },
            },
          }),
        );
        const h = await connect({
          args: ['--no-daemon', '--no-scan', '--config', join(dir, 'gamebridge.json')],
          env: { GAME_BRIDGE_HOME: home },
        });
        try {
          const launched = await call(h, 'launch_instance', {}, GODOT_READY_MS + 10000);
          expect(launched.isError).toBe(false);
          const { port } = launched.json;
          const raw = await fetch(`http://127.0.0.1:${port}/screenshot`);
          expect(raw.status).toBe(404);
          expect((await raw.json()).error).toMatch(
            /^this game gives no frames: the headless server build draws nothing/,
          );
          expect((await getJson(port, '/health')).capabilities).not.toContain('screenshot');

          const shot = await gameCall(h, port, 'screenshot');
          expect(shot.json).toMatchObject({ kind: 'CapabilityMissing', capability: 'screenshot', tool: 'screenshot' });
          await gameCall(h, port, 'bridge.pause');
          const frame = (await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value;
          const watch = await gameCall(h, port, 'watch', { frames: 2 });
          expect(watch.json).toMatchObject({ kind: 'CapabilityMissing', capability: 'screenshot', tool: 'watch' });
          const step = await gameCall(h, port, 'step', { frames: 4, filmstrip: 2 });
          expect(step.json).toMatchObject({ kind: 'CapabilityMissing', capability: 'screenshot', tool: 'step' });
          expect((await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value).toBe(frame);
          await call(h, 'stop_instance', { port });
        } finally {
          await h.close();
        }
      },
      GODOT_READY_MS + 40000,
    );
  });

  describe('Godot 3 kit filmed: the example on godot3-runner under Xvfb', () => {
    const home = tempHome('gb-gdfilm-');
    let h: McpHandle;
    let port: number;
    beforeAll(async () => {
      h = await connect({
        args: ['--no-daemon', '--no-scan', '--config', join(GODOT_EXAMPLE, 'gamebridge.json')],
        env: { GAME_BRIDGE_HOME: home },
      });
      const launched = await call(h, 'launch_instance', {}, GODOT_READY_MS + 10000);
      expect(launched.isError ? launched.text : 'launched').toBe('launched');
      port = launched.json.port;
      await gameCall(h, port, 'bridge.pause');
    }, GODOT_READY_MS + 20000);
    afterAll(async () => {
      await h?.close();
      killWithHome(home);
      removeDir(home);
    });

    test('the frame a step answers with is the frame its screenshot shows', async () => {
      await gameCall(h, port, 'teleport', { x: 20 });
      await gameCall(h, port, 'hold', { input: 'right', ms: 60000 });
      const from = (await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value;
      for (let i = 0; i < 4; i++) {
        const step = await gameCall(h, port, 'step', { frames: 3 });
        expect(step.json).toMatchObject({ applied: true, stepped: 3 });
        const shot = await gameCall(h, port, 'screenshot');
        const image = (shot.res as any).content.find((c: any) => c.type === 'image');
        expect(walkerX(Buffer.from(image.data, 'base64'))).toBe(Math.round(step.json.game.x));
        expect((await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value).toBe(from + 3 * (i + 1));
      }
      await gameCall(h, port, 'release');
    });

    test('watch on the paused game: 4 frames labelled in order, the walker moved by each', async () => {
      await gameCall(h, port, 'teleport', { x: 20 });
      await gameCall(h, port, 'hold', { input: 'right', ms: 60000 });
      const from = (await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value;
      const watch = await gameCall(h, port, 'watch', { frames: 4 }, 60000);
      await gameCall(h, port, 'release');
      expect(watch.json).toMatchObject({ watched: 4, paused: true });
      expect(watch.json.filmstrip.frames).toEqual([from + 1, from + 2, from + 3, from + 4]);
      expect(watch.json.game.x).toBeCloseTo(28, 3);
      const images = (watch.res as any).content.filter((c: any) => c.type === 'image');
      expect(images).toHaveLength(1);
    });
  });
});
