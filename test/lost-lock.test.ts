/**
 * A daemon that lost the home's lock while it was frozen never writes the shared files again:
 * its successor owns launched.json and daemon.json now. The freeze is real (SIGSTOP), the lock
 * is taken from it (removed, as a person or a confused taker would), a second real daemon takes
 * over, re-adopts the first one's game and launches its own; then the first is resumed. It used
 * to rewrite launched.json from its stale table on the way out, orphaning the successor's game.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { call, connect, type McpHandle } from './helpers/mcp.js';
import { daemonFacts, liveDaemon, publishedDaemon, reapAndReport } from './helpers/fault.js';
import { freeRange } from './helpers/ports.js';
import { alive, CLI, DIST, removeDir, tempHome, waitFor, waitGone } from './helpers/procs.js';
import { writeProject } from './helpers/project.js';

const run = promisify(execFile);
const home = tempHome('gb-lostlock-');
const env = { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '600000' };
const started = new Set<number>();
const handles: McpHandle[] = [];
let successor: ChildProcess | undefined;

afterAll(async () => {
  for (const h of handles) await h.close();
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGCONT');
  await run(process.execPath, [CLI, 'stop'], { env: { ...process.env, ...env } }).catch(() => undefined);
  if (successor?.pid) await waitGone(successor.pid, 15000);
  await reapAndReport(home, started);
  removeDir(home);
});

/** launched.json: which daemon wrote it last, and the ports it lists. */
function launchedFile(): { savedBy: number; ports: number[] } {
  const file = JSON.parse(readFileSync(join(home, 'daemon', 'launched.json'), 'utf8')) as {
    savedBy: number;
    instances: Array<{ port: number }>;
  };
  return { savedBy: file.savedBy, ports: file.instances.map((i) => i.port).sort((a, b) => a - b) };
}

const launchedPorts = () => launchedFile().ports;

/** The daemon daemon.json publishes (the successor re-publishes it; only who it names matters). */
function published(): { pid: number; port: number; token: string } {
  const { pid, port, token } = publishedDaemon(home);
  return { pid, port, token };
}

async function launch(cwd: string): Promise<number> {
  const h = await connect({ env, cwd });
  handles.push(h);
  if (h.pid) started.add(h.pid);
  const r = await call(h, 'launch_instance', {}, 60000);
  expect(r.isError ? r.text : 'ok').toBe('ok');
  started.add(r.json.pid as number);
  await h.close();
  return r.json.port as number;
}

test('a frozen daemon that lost the lock leaves without rewriting launched.json or daemon.json', async () => {
  const project = writeProject(join(home, 'project'), { ports: await freeRange(2) }).root;
  const first = await launch(project);
  const frozen = await liveDaemon(home);
  started.add(frozen.pid);

  process.kill(frozen.pid, 'SIGSTOP');
  rmSync(join(home, 'daemon', 'daemon.lock'), { recursive: true, force: true });
  successor = spawn(process.execPath, [CLI, 'daemon'], { env: { ...process.env, ...env }, stdio: 'ignore' });
  started.add(successor.pid!);
  const next = await liveDaemon(home, frozen.pid, 60000);
  expect(next.pid).toBe(successor.pid);
  const second = await launch(project); // through the successor, next to the game it re-adopted
  expect(launchedPorts()).toEqual([first, second].sort((a, b) => a - b));
  const publishedBefore = published();

  process.kill(frozen.pid, 'SIGCONT');
  expect(await waitGone(frozen.pid, 15000)).toBe(true);
  // launched.json is the successor's, with both games: the frozen daemon wrote nothing after it
  // woke, or (frozen in the middle of a save, between its lock check and its rename) it finished
  // that one write and the successor put its table back within its one-second check.
  const theirs = { savedBy: successor.pid, ports: [first, second].sort((a, b) => a - b) };
  await waitFor(
    "launched.json to be the successor's",
    () => JSON.stringify(launchedFile()) === JSON.stringify(theirs),
    5000,
  ).catch(() => undefined);
  expect(launchedFile()).toEqual(theirs);
  expect(published()).toEqual(publishedBefore);
  expect(daemonFacts(home)?.pid).toBe(successor.pid);
  const status = JSON.parse(
    (await run(process.execPath, [CLI, 'status', '--json'], { env: { ...process.env, ...env } })).stdout,
  ) as { instances: Array<{ port: number }> };
  expect(status.instances.map((i) => i.port).sort((a, b) => a - b)).toEqual([first, second].sort((a, b) => a - b));
}, 180000);

test('launched.json written by another process is put back by the live daemon within seconds', async () => {
  const next = await liveDaemon(home);
  const before = launchedFile();
  expect(before.savedBy).toBe(next.pid);
  expect(before.ports.length).toBeGreaterThan(0);
  // what a daemon frozen mid-save leaves when it wakes: its own stale table, signed with its pid
  writeFileSync(
    join(home, 'daemon', 'launched.json'),
    JSON.stringify({ version: 1, savedAt: new Date().toISOString(), savedBy: 1, instances: [], exited: [] }),
    { mode: 0o600 },
  );
  await waitFor('the daemon to write its table again', () => launchedFile().savedBy === next.pid, 5000).catch(
    () => undefined,
  );
  expect(launchedFile()).toEqual(before);
}, 60000);

test('a lock check that cannot open its file for want of descriptors is not a lost lock', async () => {
  // The real HomeLock in a child that takes the lock, then opens files until EMFILE and asks
  // held(): an fd flood once made a daemon read its own lock as lost and shut down.
  const dir = tempHome('gb-lock-emfile-');
  const script = `
    import { openSync } from 'node:fs';
    import { HomeLock } from ${JSON.stringify(join(DIST, 'daemon', 'life', 'lock.js'))};
    const lock = new HomeLock(${JSON.stringify(dir)});
    if (!lock.acquire(() => {})) throw new Error('no lock');
    const fds = [];
    try { for (;;) fds.push(openSync('/dev/null', 'r')); } catch (e) { if (e.code !== 'EMFILE') throw e; }
    const during = lock.held();
    for (const fd of fds.splice(0, 8)) (await import('node:fs')).closeSync(fd);
    console.log(JSON.stringify({ opened: fds.length, during, after: lock.held() }));
  `;
  try {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    const seen = JSON.parse(stdout) as { opened: number; during: boolean; after: boolean };
    expect(seen.opened).toBeGreaterThan(0);
    expect(seen).toMatchObject({ during: true, after: true });
  } finally {
    removeDir(dir);
  }
}, 60000);
