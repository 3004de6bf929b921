/**
 * A daemon whose GAME_BRIDGE_HOME is removed leaves (its lock check every second finds the lock
 * gone) and frees its port, whether the home goes while it serves or while it starts: a home
 * removed between taking the lock and writing daemon.json once left a daemon listening for hours,
 * with no daemon.json naming it and none of its timers (idle exit included) armed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { liveDaemon } from './helpers/fault.js';
import { CLI, removeDir, tempHome, waitFor } from './helpers/procs.js';

const homes: string[] = [];
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const h of homes) removeDir(h);
});

/** A real daemon on a fresh home, idle exit far away (only the lock check can end it). */
function startDaemon(): { home: string; daemon: ChildProcess } {
  const home = tempHome('gb-gone-');
  homes.push(home);
  const daemon = spawn(process.execPath, [CLI, 'daemon'], {
    env: { ...process.env, GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '600000' },
    cwd: home,
    stdio: 'ignore',
  });
  children.push(daemon);
  return { home, daemon };
}

const ended = (c: ChildProcess) => c.exitCode !== null || c.signalCode !== null;

/** Does anything accept a TCP connection on 127.0.0.1:`port`? */
function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/** rm -rf `home` while the daemon is still writing in it (its token, its launched.json). */
async function removeWhileWritten(home: string): Promise<void> {
  await waitFor(
    'the home to be removed',
    () => {
      rmSync(home, { recursive: true, force: true });
      return true;
    },
    5000,
    1,
  );
}

test('a serving daemon whose home is removed exits within seconds and closes its port', async () => {
  const { home, daemon } = startDaemon();
  const facts = await liveDaemon(home, undefined, 60000);
  expect(await portOpen(facts.port)).toBe(true);
  rmSync(home, { recursive: true, force: true });
  const t0 = Date.now();
  await waitFor('the daemon to exit', () => ended(daemon), 10000);
  expect(Date.now() - t0).toBeLessThan(5000);
  expect(daemon.exitCode).toBe(0);
  expect(await portOpen(facts.port)).toBe(false);
}, 120000);

test('a home removed while the daemon starts (just after it took the lock): the daemon still exits', async () => {
  const outcomes: string[] = [];
  for (let trial = 0; trial < 5; trial++) {
    const { home, daemon } = startDaemon();
    const lock = join(home, 'daemon', 'daemon.lock');
    await waitFor('the daemon to take its lock', () => existsSync(lock) || ended(daemon), 60000, 1);
    await removeWhileWritten(home);
    const left = await waitFor('the daemon to exit', () => ended(daemon), 10000).catch(() => false);
    outcomes.push(`trial ${trial}: ${left ? `exited (${daemon.exitCode ?? daemon.signalCode})` : 'still running'}`);
  }
  expect(outcomes.filter((o) => o.endsWith('still running'))).toEqual([]);
}, 300000);
