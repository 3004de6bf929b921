/** The restartable fixture game (test/fixtures/restartable-game.mjs): start it, read it. */
import http from 'node:http';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { ROOT, waitFor, type Reaper } from './procs.js';

export const FIXTURE_GAME = join(ROOT, 'test', 'fixtures', 'restartable-game.mjs');

export interface FixtureHealth {
  ok: true;
  frame: number;
  pid: number;
  generation: number;
  /** how often /state was read: a bridge polling it shows here */
  statePolls: number;
}

export interface FixtureGame {
  generation: number;
  pid: number;
  received: string[];
  bumps: Record<string, number>;
}

/** GET on a new connection each time: a kept-alive one could still reach a process that handed over. */
export function getJson<T>(port: number, path: string): Promise<T> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => {
          try {
            resolve(JSON.parse(body) as T);
          } catch (e) {
            reject(e);
          }
        });
      })
      .on('error', reject);
  });
}

export const fixtureHealth = (port: number) => getJson<FixtureHealth>(port, '/health');
export const fixtureGame = async (port: number) => (await getJson<{ game: FixtureGame }>(port, '/state')).game;

/**
 * Start the fixture on a free port in its own process group (its respawned copies join it);
 * `trackGroup` gets the group to kill after the test.
 */
export async function startFixture(
  reaper: Reaper,
  env: Record<string, string>,
  trackGroup: (pgid: number) => void,
  args: string[] = [],
): Promise<number> {
  const port = await freePort();
  const child = reaper.spawn(process.execPath, [FIXTURE_GAME, '--port', String(port), ...args], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, ...env },
  });
  trackGroup(child.pid!);
  await waitFor(`fixture game on ${port}`, async () => (await fixtureHealth(port)).ok, 15000);
  return port;
}
