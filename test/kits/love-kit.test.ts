/**
 * The LÖVE kit (kits/love/gamebridge.lua) beyond the conformance suite (conformance.test.ts runs
 * the contract on its example, examples/love-game, through SDL's offscreen driver): the game
 * under a real X server as `xvfb-run` gives it, a bad port, SIGTERM, the kit file itself, and a
 * step's frames taken many to a frame, and love.mouse, love.touch and love.joystick following the
 * agent's pointer, touches, axes and held inputs.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodePng } from '../helpers/png.js';
import { freePort } from '../helpers/ports.js';
import { ROOT, Reaper, exitCode, removeDir, tempHome, waitFor } from '../helpers/procs.js';
import {
  LOVE_EXAMPLE,
  LOVE_READY_MS,
  command,
  describeIfRuntime,
  expectBatchedStep,
  getJson,
  spawnKitGame,
  startDisplay,
  startKitGame,
  untilState,
} from './kit-game.js';

describe('LÖVE kit: on an X display, a bad port, SIGTERM', () => {
  describeIfRuntime(
    'love',
    () => {
      const reaper = new Reaper();
      const dirs: string[] = [];
      const dir = () => {
        const d = tempHome('gb-lovekit-');
        dirs.push(d);
        return d;
      };
      afterAll(async () => {
        await reaper.reap();
        dirs.forEach(removeDir);
      });
      /** A main.lua of `lines` beside the kit file, run offscreen; what its last line printed, as JSON. */
      const runMain = (lines: string[]) => {
        const d = dir();
        copyFileSync(join(ROOT, 'kits', 'love', 'gamebridge.lua'), join(d, 'gamebridge.lua'));
        writeFileSync(join(d, 'main.lua'), lines.join('\n'));
        const out = execFileSync('love', [d], {
          env: { ...process.env, SDL_VIDEODRIVER: 'offscreen' },
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
          timeout: LOVE_READY_MS,
          killSignal: 'SIGKILL', // a Lua error leaves LÖVE on its error screen, which outlives SIGTERM
        });
        return JSON.parse(out.trim().split('\n').pop()!);
      };

      test('the example runs the kit file itself (a link to kits/love; users copy the file the same way)', () => {
        expect(realpathSync(join(LOVE_EXAMPLE, 'gamebridge.lua'))).toBe(
          realpathSync(join(ROOT, 'kits', 'love', 'gamebridge.lua')),
        );
      });

      describe('the example under Xvfb', () => {
        let g: Awaited<ReturnType<typeof startKitGame>>;
        let entry: string;
        let before: ReturnType<typeof decodePng>;

        beforeAll(async () => {
          const home = dir();
          g = await startKitGame(reaper, 'love', await freePort(), home, await startDisplay(reaper, process.env));
          entry = join(home, 'instances', `${g.child.pid}.json`);
          await waitFor('registry entry', () => existsSync(entry), 5000);
        }, LOVE_READY_MS + 5000);

        test('the menu clicked through the tree shows in the screenshot', async () => {
          const hud = await fetch(`http://127.0.0.1:${g.port}/screenshot`);
          expect(hud.headers.get('content-type')).toBe('image/png');
          before = decodePng(Buffer.from(await hud.arrayBuffer()));
          expect([before.width, before.height]).toEqual([1280, 720]);
          const open = await command(g.port, 'ui.activate', { id: 'open-menu' });
          await untilState(g.port, 'the menu open', (s) => s.completedCommandId >= open.commandId);
          expect((await getJson(g.port, '/ui')).screen).toBe('MenuScreen');
          const menu = decodePng(
            Buffer.from(await (await fetch(`http://127.0.0.1:${g.port}/screenshot`)).arrayBuffer()),
          );
          // The Resume button's box (540, 240, 200x48) is drawn now and was background before.
          const at = (img: typeof menu, x: number, y: number) =>
            img.pixels
              .subarray((y * img.width + x) * img.channels, (y * img.width + x + 1) * img.channels)
              .toString('hex');
          expect(at(menu, 560, 250)).not.toBe(at(before, 560, 250));
        });

        test('SIGTERM quits cleanly', async () => {
          const code = exitCode(g.child);
          g.child.kill('SIGTERM'); // SDL turns it into a quit event: the kit's normal exit
          expect(await code).toBe(0);
          expect(existsSync(entry)).toBe(false);
        });
      });

      test(
        "stepFramesPerTick lets the kit's loop run many of a step's frames at once: the example's 600-frame step takes a few frames, not 600",
        async () => {
          const { port } = await startKitGame(reaper, 'love', await freePort(), dir());
          await expectBatchedStep(port);
        },
        LOVE_READY_MS + 5000,
      );

      test(
        'a bad debug port is said on stderr and the game plays on',
        async () => {
          const { child, output } = spawnKitGame(reaper, 'love', 'abc', dir());
          await waitFor('the refusal', () => output.text.includes('GameBridge: --debug-port'), LOVE_READY_MS);
          expect(output.text).toContain("GameBridge: --debug-port must be a port number (1-65535), got 'abc'");
          await new Promise((r) => setTimeout(r, 500));
          expect(child.exitCode).toBeNull();
        },
        LOVE_READY_MS + 5000,
      );

      test(
        "love.mouse follows the one mouse: the agent's pointer until a real mousemoved, a button down on either",
        () => {
          const seen = runMain([
            'local gamebridge = require("gamebridge")',
            'function love.load()',
            '  local bridge = gamebridge.new({name = "T", pointer = true})',
            '  bridge:apply(1, "input.pointer", {x = "40", y = "30", buttons = "2", owner = "a"})',
            '  local x, y = love.mouse.getPosition()',
            '  local agent = {x, y, love.mouse.getX(), love.mouse.getY(), love.mouse.isDown(2), love.mouse.isDown(1), love.mouse.isDown(1, 2)}',
            '  love.handlers.mousemoved(7, 8, 1, 1, false) -- a real motion, as SDL delivers it',
            '  local rx, ry = love.mouse.getPosition()',
            '  local realX, realY = bridge.realMouse.getPosition()',
            '  print(gamebridge.json({agent = agent, afterReal = {rx == realX and ry == realY, love.mouse.isDown(2)}}))',
            '  love.event.quit()',
            'end',
          ]);
          expect(seen.agent).toEqual([40, 30, 40, 30, true, false, true]);
          // the real mouse moved: the position is its own again; the agent's right button is still held
          expect(seen.afterReal).toEqual([true, true]);
        },
        LOVE_READY_MS + 5000,
      );

      test(
        "love.touch lists the agent's fingers and love.joystick the bridge's gamepad, announced once: its axes, its buttons the held inputs",
        () => {
          const seen = runMain([
            'local gamebridge = require("gamebridge")',
            'function love.load()',
            '  local told = {}',
            '  function love.gamepadaxis(j, name, v) table.insert(told, {j == bridge.joystick, name, v}) end',
            '  function love.joystickaxis(j, i, v) table.insert(told, {j == bridge.joystick, i, v}) end',
            '  function love.joystickadded(j) table.insert(told, {j == bridge.joystick, "added"}) end',
            '  bridge = gamebridge.new({name = "T", inputs = {"left", "a"}, touch = true,',
            '    axes = {{name = "leftx", min = -1, max = 1}, {name = "triggerleft", min = 0, max = 1}}})',
            '  bridge:apply(1, "input.axis", {input = "triggerleft", value = "0.5", owner = "o", leaseMs = "60000"})',
            '  bridge:apply(2, "input.hold", {input = "a", owner = "o", leaseMs = "60000"})',
            '  bridge:apply(3, "input.touch", {id = "3", x = "10", y = "20", phase = "down", owner = "o"})',
            '  bridge:beginFrame()',
            '  bridge:beginFrame()',
            '  local pads = love.joystick.getJoysticks()',
            '  local pad = pads[#pads]',
            '  local realSays = select(2, pcall(bridge.realTouch.getPosition, 3))',
            '  print(gamebridge.json({',
            '    count = {love.joystick.getJoystickCount(), #pads, bridge.realJoystick.getJoystickCount(), pad == bridge.joystick},',
            '    axes = {pad:getAxisCount(), pad:getAxis(1), pad:getAxis(2), pad:getGamepadAxis("triggerleft"), pad:getGamepadAxis("leftx")},',
            '    buttons = {pad:getButtonCount(), pad:isDown(1), pad:isDown(2), pad:isDown(1, 2), pad:isGamepadDown("a"), pad:isGamepadDown("left")},',
            '    told = told,',
            '    touch = {love.touch.getTouches(), {love.touch.getPosition(3)}, love.touch.getPressure(3), #bridge.realTouch.getTouches()},',
            '    realSays = tostring(realSays)}))',
            '  love.event.quit()',
            'end',
          ]);
          // one more joystick than the machine has, listed after its own: the bridge's
          expect(seen.count).toEqual([seen.count[2] + 1, seen.count[2] + 1, seen.count[2], true]);
          expect(seen.axes).toEqual([2, 0, 0.5, 0.5, 0]);
          expect(seen.buttons).toEqual([2, false, true, true, true, false]);
          // the gamepad announced once, then the changed axis by its place and by its name, from it
          expect(seen.told).toEqual([
            [true, 'added'],
            [true, 2, 0.5],
            [true, 'triggerleft', 0.5],
          ]);
          expect(seen.touch).toEqual([[3], [10, 20], 1, 0]);
          expect(seen.realSays).toMatch(/touch id expected/); // an id the agent does not hold goes to LÖVE's own
        },
        LOVE_READY_MS + 5000,
      );
    },
    ['Xvfb'],
  );
});
