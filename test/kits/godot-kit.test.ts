/**
 * The Godot 3 kit (kits/godot3/GameBridge.gd) beyond the conformance suite (conformance.test.ts
 * runs the contract on its example, examples/godot-game, headless): start-up and packaging.
 */
import { realpathSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { freePort } from '../helpers/ports.js';
import { ROOT, Reaper, exitCode, removeDir, tempHome, waitFor } from '../helpers/procs.js';
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
    'a port already in use is said on stderr and the game plays on without its surface',
    async () => {
      const port = await freePort();
      const blocker = net.createServer().listen(port, '127.0.0.1');
      try {
        await new Promise((r) => blocker.once('listening', r));
        const { child, output } = spawnKitGame(reaper, 'godot', String(port), dir());
        await waitFor('the refusal', () => output.text.includes('GameBridge: cannot listen'), GODOT_READY_MS);
        expect(output.text).toContain(
          `GameBridge: cannot listen on 127.0.0.1:${port} (error 22: the port is probably in use); the game runs without its bridge surface`,
        );
        await new Promise((r) => setTimeout(r, 1500));
        expect(child.exitCode).toBeNull();
      } finally {
        blocker.close();
      }
    },
    GODOT_READY_MS + 5000,
  );
});
