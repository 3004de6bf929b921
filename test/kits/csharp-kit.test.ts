/**
 * The C# kit (kits/csharp/GameBridge.cs) beyond the conformance suite (conformance.test.ts runs
 * the contract on its example, examples/csharp-game: a console Walker built by Mono's mcs and
 * run by mono through run.sh): a taken port and a bad one, no flag at all, and a step's frames
 * taken many to a tick.
 */
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { freePort } from '../helpers/ports.js';
import { Reaper, exitCode, removeDir, tempHome, waitFor } from '../helpers/procs.js';
import {
  CSHARP_EXAMPLE,
  CSHARP_READY_MS,
  describeIfRuntime,
  expectBatchedStep,
  spawnKitGame,
  startKitGame,
} from './kit-game.js';

describe('C# kit: start-up, a taken port, the end', () => {
  describeIfRuntime('csharp', () => {
    const reaper = new Reaper();
    const dirs: string[] = [];
    const dir = () => {
      const d = tempHome('gb-cskit-');
      dirs.push(d);
      return d;
    };
    afterAll(async () => {
      await reaper.reap();
      dirs.forEach(removeDir);
    });

    test('the example compiles the kit file itself (users add the same file to their project)', () => {
      expect(readFileSync(join(CSHARP_EXAMPLE, 'run.sh'), 'utf8')).toContain('../../kits/csharp/GameBridge.cs');
    });

    test(
      'a port already in use is said on stderr and the game exits',
      async () => {
        const port = await freePort();
        const blocker = net.createServer((s) => s.destroy()).listen(port, '127.0.0.1');
        try {
          await new Promise((r) => blocker.once('listening', r));
          const { child, output } = spawnKitGame(reaper, 'csharp', String(port), dir());
          expect(await exitCode(child)).toBe(1);
          expect(output.text).toMatch(
            new RegExp(
              `GameBridge: cannot listen on 127\\.0\\.0\\.1:${port} \\(.+\\); the game exits, since whatever holds the port would be taken for it`,
            ),
          );
        } finally {
          blocker.close();
        }
      },
      CSHARP_READY_MS + 5000,
    );

    test(
      'a bad debug port is said on stderr and the game plays on',
      async () => {
        const { child, output } = spawnKitGame(reaper, 'csharp', '70000', dir());
        await waitFor('the refusal', () => output.text.includes('GameBridge: --debug-port'), CSHARP_READY_MS);
        expect(output.text).toContain("GameBridge: --debug-port must be a port number (1-65535), got '70000'");
        await new Promise((r) => setTimeout(r, 500));
        expect(child.exitCode).toBeNull();
      },
      CSHARP_READY_MS + 5000,
    );

    test(
      "StepFramesPerTick lets Tick run many of a step's frames at once: the example's 600-frame step takes a few ticks, not 600",
      async () => {
        const { port } = await startKitGame(reaper, 'csharp', await freePort(), dir());
        await expectBatchedStep(port);
      },
      CSHARP_READY_MS + 5000,
    );

    test(
      'without --debug-port the game runs with no surface and no registry entry',
      async () => {
        const home = dir();
        const child = reaper.spawn('sh', ['run.sh'], {
          cwd: CSHARP_EXAMPLE,
          env: { ...process.env, GAME_BRIDGE_HOME: home },
        });
        await new Promise((r) => setTimeout(r, 3000));
        expect(child.exitCode).toBeNull();
        expect(existsSync(join(home, 'instances'))).toBe(false);
      },
      CSHARP_READY_MS,
    );
  });
});
