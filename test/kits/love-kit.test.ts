/**
 * The LÖVE kit (kits/love/gamebridge.lua) through its example game, examples/love-game, run
 * by the real LÖVE 11 on a virtual X display of its own: the conformance suite, then how it
 * starts, refuses a port, and ends.
 */
import { realpathSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { freePort } from '../helpers/ports.js';
import { ROOT, Reaper, alive, exitCode, removeDir, tempHome, waitFor } from '../helpers/procs.js';
import { describeKitContract } from './contract-suite.js';
import { KITS, LOVE_EXAMPLE, describeIfRuntime, getJson, spawnKitGame, startKitGame } from './kit-game.js';

describe('LÖVE kit: the contract on the Walker example (LÖVE 11 under Xvfb)', () => {
  describeKitContract('love');
});

describe('LÖVE kit: start-up, a taken port, the end', () => {
  describeIfRuntime('love', () => {
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

    test('the example runs the kit file itself (a link to kits/love; users copy the file the same way)', () => {
      expect(realpathSync(join(LOVE_EXAMPLE, 'gamebridge.lua'))).toBe(
        realpathSync(join(ROOT, 'kits', 'love', 'gamebridge.lua')),
      );
    });

    test(
      'a port already in use is said on stderr and the game runs on without its surface',
      async () => {
        const port = await freePort();
        const blocker = net.createServer((s) => s.destroy()).listen(port, '127.0.0.1');
        try {
          await new Promise((r) => blocker.once('listening', r));
          const { child, output } = await spawnKitGame(reaper, 'love', String(port), dir());
          await waitFor(
            'the refusal on stderr',
            () => output.text.includes('GameBridge: cannot listen'),
            KITS.love.readyMs,
          );
          expect(output.text).toContain(
            `GameBridge: cannot listen on 127.0.0.1:${port} (address already in use); the game runs without its bridge surface`,
          );
          await new Promise((r) => setTimeout(r, 1000));
          expect(child.exitCode).toBeNull();
          expect(alive(child.pid!)).toBe(true);
        } finally {
          blocker.close();
        }
      },
      KITS.love.readyMs + 5000,
    );

    test(
      'a bad debug port is said on stderr; the game still runs',
      async () => {
        const { child, output } = await spawnKitGame(reaper, 'love', 'abc', dir());
        await waitFor('the refusal', () => output.text.includes('GameBridge: --debug-port'), KITS.love.readyMs);
        expect(output.text).toContain("GameBridge: --debug-port must be a port number (1-65535), got 'abc'");
        await new Promise((r) => setTimeout(r, 500));
        expect(child.exitCode).toBeNull();
      },
      KITS.love.readyMs + 5000,
    );

    test(
      'SIGTERM ends the game through its normal quit: exit 0, registry entry removed',
      async () => {
        const home = dir();
        const g = await startKitGame(reaper, 'love', await freePort(), home);
        const entry = join(home, 'instances', `${g.child.pid}.json`);
        const { existsSync } = await import('node:fs');
        await waitFor('registry entry', () => existsSync(entry), 5000);
        expect((await getJson(g.port, '/health')).ok).toBe(true);
        const code = exitCode(g.child);
        g.child.kill('SIGTERM');
        expect(await code).toBe(0);
        expect(existsSync(entry)).toBe(false);
      },
      KITS.love.readyMs + 10000,
    );
  });
});
