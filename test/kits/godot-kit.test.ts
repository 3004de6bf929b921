/**
 * The Godot 3 kit (kits/godot3/GameBridge.gd) beyond the conformance suite (conformance.test.ts
 * runs the contract on its example, examples/godot-game, headless): start-up and packaging.
 */
import { realpathSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { freePort } from '../helpers/ports.js';
import { ROOT, Reaper, exitCode, removeDir, tempHome } from '../helpers/procs.js';
import { GODOT_EXAMPLE, GODOT_READY_MS, spawnKitGame } from './kit-game.js';

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
    'a port already in use is refused clearly, exit code 2',
    async () => {
      const port = await freePort();
      const blocker = net.createServer().listen(port, '127.0.0.1');
      try {
        await new Promise((r) => blocker.once('listening', r));
        const { child, output } = spawnKitGame(reaper, 'godot', String(port), dir());
        expect(await exitCode(child)).toBe(2);
        expect(output.text).toContain(`GameBridge: cannot listen on 127.0.0.1:${port}`);
      } finally {
        blocker.close();
      }
    },
    GODOT_READY_MS,
  );
});
