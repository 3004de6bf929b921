/** The tree fixture game (test/fixtures/tree-game.mjs): start it, read what it received. */
import { join } from 'node:path';
import { getJson } from './fixture-game.js';
import { freePort } from './ports.js';
import { ROOT, waitFor, type Reaper } from './procs.js';

export const TREE_GAME = join(ROOT, 'test', 'fixtures', 'tree-game.mjs');

/** Start the fixture on a free port; resolves once /health answers. */
export async function startTreeGame(reaper: Reaper, args: string[] = []): Promise<number> {
  const port = await freePort();
  reaper.spawn(process.execPath, [TREE_GAME, '--port', String(port), ...args], { stdio: 'ignore' });
  await waitFor(
    `tree game on ${port}`,
    async () => (await getJson<{ ok: boolean }>(port, '/health').catch(() => ({ ok: false }))).ok,
    15000,
  );
  return port;
}

/** The commands the game has received so far, by name, in order (the bridge never reads this route). */
export const received = async (port: number) => (await getJson<{ received: string[] }>(port, '/fixture')).received;
