/**
 * What a game's answers to /health, /state and /command are checked as (daemon/game/client.ts):
 * the error class and wording for an answer that is not the contract's, and a refusal cut to
 * what an agent can read.
 */
import { GameClient } from '../../../../daemon/game/client.js';
import type { BridgeError } from '../../../../shared/errors.js';
import { LocalSurfaces } from '../../../../daemon/game/local-surfaces.js';

/** A client of a game, served in-process, that answers every path with `body` (HTTP `status`). */
function gameAnswering(body: unknown, status = 200): GameClient {
  const surfaces = new LocalSurfaces();
  surfaces.serve(7001, async () => ({ status, body }));
  return new GameClient(7001, { timeoutMs: 2000, local: surfaces });
}

/** The text an agent reads of the error `call` failed with (the test fails when it did not fail). */
async function failure(call: Promise<unknown>): Promise<{ message: string }> {
  return call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (e: BridgeError) => ({ message: e.text }),
  );
}

test('a health answer with ok true passes through whole', async () => {
  expect(await gameAnswering({ ok: true, frame: 3, game: 'g' }).health()).toEqual({ ok: true, frame: 3, game: 'g' });
});

test('a health answer whose ok is the text "true" is not a game surface', async () => {
  expect((await failure(gameAnswering({ ok: 'true' }).health())).message).toMatch(
    /^NotAGameSurface: .*GET \/health did not answer \{"ok": true\}/,
  );
});

test('a state that is a list is not a game surface', async () => {
  expect((await failure(gameAnswering([1, 2]).state())).message).toMatch(
    /^NotAGameSurface: .*GET \/state did not return a JSON object/,
  );
});

test('a command answer that is a number is not a game surface', async () => {
  expect((await failure(gameAnswering(7).command('jump'))).message).toMatch(
    /^NotAGameSurface: .*GET \/command did not return a JSON object/,
  );
});

test('an accepted command answer passes through whole', async () => {
  expect(await gameAnswering({ accepted: true, commandId: 4, note: 'queued' }).command('jump')).toEqual({
    accepted: true,
    commandId: 4,
    note: 'queued',
  });
});

test('a refusal names its reason and the commands the game knows', async () => {
  const e = await failure(
    gameAnswering({ accepted: false, error: 'no such command', known: ['jump', 'run'] }).command('jmp'),
  );
  expect(e.message).toMatch(/^CommandRejected: .*rejected 'jmp': no such command\. The game accepts: jump, run\./);
});

test('a refusal with a megabyte of reason is cut to a readable length', async () => {
  const e = await failure(gameAnswering({ accepted: false, error: 'x'.repeat(1024 * 1024) }).command('jump'));
  expect(e.message).toMatch(/^CommandRejected: /);
  expect(e.message.length).toBeLessThan(3000);
});

test('a refusal listing ten thousand commands names at most two hundred', async () => {
  const known = Array.from({ length: 10_000 }, (_, i) => `cmd${i}`);
  const e = await failure(gameAnswering({ accepted: false, error: 'no', known }).command('jump'));
  expect(e.message).toContain('cmd199.');
  expect(e.message).not.toContain('cmd200');
});
