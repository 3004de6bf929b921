/** A real-time saved test's waits (cli/saved-tests/game.ts placeInTime): many timed steps share one abort signal. */
import { getEventListeners } from 'node:events';
import { Game, placeInTime } from '../../../../cli/saved-tests/game.js';
import type { Driver } from '../../../../cli/saved-tests/driver.js';

test('a real-time replay of more than ten timed steps leaves no abort listener behind on its signal', async () => {
  const game = new Game({} as Driver, 1, false);
  const signal = new AbortController().signal;
  const started = Date.now();
  for (let i = 0; i < 15; i++)
    await placeInTime(game, { expect: { path: 'x', exists: true }, atMs: 10 * (i + 1) }, started, signal);
  // Node warns (MaxListenersExceededWarning) past ten
  expect(getEventListeners(signal, 'abort')).toHaveLength(0);
});
