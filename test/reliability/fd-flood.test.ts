/**
 * Chaos: another local user floods a browser game's page carrier and static server with idle
 * connections, more than the daemon has descriptors (its limit lowered with prlimit, which
 * needs root, as the second user does), while a client keeps calling. The
 * daemon keeps serving, keeps its lock and keeps the game: those doors are capped (the loopback
 * guard), and a lock check that cannot open its file is not a lost lock. (An audit exhausted
 * the daemon's descriptors this way; its lock check then failed with EMFILE and it shut down.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { call, connect, gameCall, type McpHandle } from '../helpers/mcp.js';
import { asNobody, asOtherUserTest } from '../helpers/nobody.js';
import { freeRange } from '../helpers/ports.js';
import { DIST, removeDir, ROOT, stopDaemon, tempHome } from '../helpers/procs.js';
import { publishedDaemon, reapAndReport, reportFigures } from '../helpers/fault.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

jest.setTimeout(180_000);

const run = promisify(execFile);
const FLOOD_MS = 15_000;
/** The daemon's descriptor limit for the test (lowered with prlimit, so a flood of one process exceeds it). */
const DAEMON_FDS = 4096;
/** Connections the flood keeps trying to hold on each door: together, past the daemon's descriptor limit. */
const PER_DOOR = 3000;

let home: string;
let h: McpHandle | undefined;

afterAll(async () => {
  await h?.close();
  stopDaemon(home);
  await reapAndReport(home);
  removeDir(home);
});

asOtherUserTest('an fd flood against a web game keeps the daemon serving, its lock and its game', async () => {
  home = tempHome('gb-fdflood-');
  const project = join(home, 'project');
  mkdirSync(project);
  const [first] = await freeRange(2);
  writeFileSync(
    join(project, 'gamebridge.json'),
    JSON.stringify({
      name: 'Dot',
      launch: { portRange: `${first}-${first + 1}`, web: { static: join(DIST, 'examples', 'canvas-game', 'www') } },
    }),
  );
  h = await connect({ env: { GAME_BRIDGE_HOME: home }, cwd: project, args: ['--no-scan', '--timeout', '10000'] });
  const launched = await call(h, 'launch_instance', {}, 120_000);
  expect(launched.isError).toBe(false);
  const port = launched.json.port as number;
  const daemonPid = () => publishedDaemon(home).pid;
  const pid = daemonPid();
  await run('prlimit', [`--pid=${pid}`, `--nofile=${DAEMON_FDS}:${DAEMON_FDS}`]);
  const web = JSON.parse(readFileSync(join(home, 'daemon', 'launched.json'), 'utf8')).instances[0].web;

  const script = `
    const { flood } = await import(${JSON.stringify(join(ROOT, 'test', 'fixtures', 'fd-flood.mjs'))});
    console.log(JSON.stringify(await flood(${JSON.stringify([port, web.static.port])}, ${PER_DOOR}, ${FLOOD_MS})));`;
  const flooding = asNobody(script, FLOOD_MS + 60_000);
  let calls = 0;
  const failures: string[] = [];
  let done = false;
  void flooding.finally(() => (done = true));
  while (!done) {
    const state = await gameCall(h, port, 'get_state', {});
    const list = await call(h, 'list_instances');
    calls += 2;
    if (state.isError) failures.push(state.text.slice(0, 200));
    if (list.isError || !list.json.live.some((l: { port: number }) => l.port === port))
      failures.push(`list_instances: ${list.text.slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const seen = JSON.parse(await flooding) as { opened: number; refused: number; peakOpen: number };
  reportFigures(
    'fd flood',
    `${seen.opened} connections tried against the carrier and the static server in ${FLOOD_MS} ms (the daemon limited to ${DAEMON_FDS} descriptors), at most ${seen.peakOpen} open at once; ${calls} calls made meanwhile, ${failures.length} failed`,
  );
  expect(seen.opened).toBeGreaterThan(PER_DOOR);
  expect(failures).toEqual([]);
  expect(calls).toBeGreaterThan(10);
  expect(daemonPid()).toBe(pid);
  const log = readFileSync(join(home, 'daemon', 'daemon.log'), 'utf8');
  expect(log).not.toMatch(/the home lock is no longer ours/);
  expect((await gameCall(h, port, 'health')).json).toMatchObject({ ok: true });
});
