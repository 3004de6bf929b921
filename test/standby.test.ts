/**
 * The standby (daemon/life/standby.ts): a successor waits beside the daemon and takes over when it is
 * kill -9'ed; by default a light one (Node started, nothing loaded), with GAME_BRIDGE_STANDBY=1
 * a warm one (every module loaded), with 0 none. Real proxy (SDK client), real daemon, real
 * launched game.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { daemonFacts, daemonsOf, readyStandby, reapAndReport } from './helpers/fault.js';
import { call } from './helpers/mcp.js';
import { pairSuite } from './helpers/pair.js';
import { freePort } from './helpers/ports.js';
import { writeProject } from './helpers/project.js';
import { alive, bridgeFreeEnv, CLI, DIST, Reaper, removeDir, tempHome, waitGone } from './helpers/procs.js';

const run = promisify(execFile);

describe.each([
  ['light', {}],
  ['warm', { GAME_BRIDGE_STANDBY: '1' }],
] as const)('a %s standby', (kind, env) => {
  const suite = pairSuite(`gb-standby-${kind}-`, env);
  const daemonLog = () => readFileSync(join(suite.home, 'daemon', 'daemon.log'), 'utf8');
  /** daemon.log's lines stamped by `pid` */
  const linesOf = (pid: number) =>
    daemonLog()
      .split('\n')
      .filter((l) => l.includes(`[${pid}] `));

  test('kill -9: the standby alone takes over, knowing the game before the replayed stop_instance', async () => {
    const gamePort = await freePort();
    const project = writeProject(join(suite.home, 'project'), { ports: [gamePort] }).root;
    const h = await suite.open(project);
    const launched = await call(h, 'launch_instance', {}, 60000);
    expect(launched.isError ? launched.text : 'ok').toBe('ok');
    const gamePid = launched.json.pid as number;
    suite.trackGroup(gamePid);
    const first = await suite.daemonPid();
    const standby = await readyStandby(suite.home);
    expect(standby).not.toBe(first);
    // a light standby has loaded nothing while it waits (the bundle says so once loaded); a warm one has
    const loadedBefore = linesOf(standby).some((l) => /daemon bundle/.test(l));
    expect(loadedBefore).toBe(kind === 'warm');

    process.kill(first, 'SIGKILL');
    // Sent at once: the proxy holds it until the successor answers, which must know the game by then.
    const stopped = await call(h, 'stop_instance', { port: gamePort }, 60000);
    expect(stopped.isError ? stopped.text : stopped.json).toMatchObject({ port: gamePort, stopped: true });
    expect(await waitGone(gamePid, 15000)).toBe(true);
    expect(daemonFacts(suite.home)?.pid).toBe(standby);
    suite.reaper.track(standby);

    // The new primary boots a standby of its own; a daemon the proxy started at the kill would
    // have finished booting by then, lost the lock and said so.
    const next = await readyStandby(suite.home, standby);
    suite.reaper.track(next);
    expect(linesOf(standby).join('\n')).toMatch(new RegExp(`the ${kind} standby takes over`));
    expect(daemonLog()).not.toMatch(/already serves/);
    expect(daemonsOf(suite.home).sort()).toEqual([standby, next].sort());
  });

  test('a standby that dies is replaced', async () => {
    const h = await suite.open();
    await h.client.listTools();
    const primary = await suite.daemonPid();
    const standby = await readyStandby(suite.home);
    // `status` says which standby waits
    const env = { ...process.env, ...suite.env };
    const status = JSON.parse((await run(process.execPath, [CLI, 'status', '--json'], { env })).stdout) as {
      standby?: { pid: number; kind: string };
    };
    expect(status.standby).toMatchObject({ pid: standby, kind });
    expect((await run(process.execPath, [CLI, 'status'], { env })).stdout).toContain(
      `standby pid ${standby} (${kind})`,
    );
    process.kill(standby, 'SIGKILL');
    const replacement = await readyStandby(suite.home, standby);
    suite.reaper.track(replacement);
    expect(alive(primary)).toBe(true);
    expect(daemonFacts(suite.home)?.pid).toBe(primary);
  });

  test('`stop` ends the daemon and its standby: nothing is left', async () => {
    const h = await suite.open();
    await h.client.listTools();
    const primary = await suite.daemonPid();
    const standby = await readyStandby(suite.home);
    await h.close();
    await run(process.execPath, [CLI, 'stop'], { env: { ...process.env, ...suite.env } });
    expect(await waitGone(primary, 15000)).toBe(true);
    expect(await waitGone(standby, 5000)).toBe(true);
    expect(await reapAndReport(suite.home)).toEqual([]);
  });
});

describe('GAME_BRIDGE_STANDBY=0', () => {
  const suite = pairSuite('gb-standby-none-', { GAME_BRIDGE_STANDBY: '0' });

  test('keeps no standby: one daemon, with none named in daemon.json', async () => {
    const h = await suite.open();
    await h.client.listTools();
    const primary = await suite.daemonPid();
    // past the delay after which a daemon starts its standby (1 s), with room for a slow start
    await new Promise((r) => setTimeout(r, 3000));
    expect(daemonsOf(suite.home)).toEqual([primary]);
    expect(daemonFacts(suite.home)?.standby).toBeUndefined();
  });
});

test('a light standby whose home is removed while it takes over leaves without making the home again', async () => {
  const home = tempHome('gb-standby-gone-');
  const reaper = new Reaper();
  try {
    const env = bridgeFreeEnv({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '60000' });
    const daemon = reaper.spawn(process.execPath, [join(DIST, 'daemon', 'life', 'boot.js')], { env, stdio: 'ignore' });
    const standby = await readyStandby(home);
    reaper.track(standby);
    process.kill(daemon.pid!, 'SIGKILL');
    await waitGone(daemon.pid!, 5000);
    // the standby has seen its primary gone and the home there; it is loading the daemon now
    await new Promise((r) => setTimeout(r, 15));
    removeDir(home);
    expect(await waitGone(standby, 10000)).toBe(true);
    expect(existsSync(home)).toBe(false);
  } finally {
    await reaper.reap();
    await reapAndReport(home); // a standby of its own, had one taken over
    removeDir(home);
  }
});
