/**
 * A game's whole life, told truthfully, through the real proxy and daemon (SDK client): the
 * launch pid is the game's own; a game that dies (kill -9, a signal, exit code 3, a crash in
 * the middle of wait_for) is reported with GameExited and its facts by every call that
 * addresses it, listed under `exited`, and "stopped" as already exited; restart keeps the
 * port; profiles start several instances at once, all or none.
 */
import { reportFigures } from './helpers/fault.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, gameCall, type McpHandle } from './helpers/mcp.js';
import { pairSuite } from './helpers/pair.js';
import { freeRange } from './helpers/ports.js';
import { writeProject } from './helpers/project.js';
import { alive, EXAMPLE_GAME, healthOk, waitFor, waitGone } from './helpers/procs.js';
import { homePaths } from '../shared/paths.js';

const suite = pairSuite('gb-life-');

/** A project whose gamebridge.json launches Crate Stack on `ports`, with test profiles. */
async function project(portCount = 4): Promise<{ cwd: string; ports: number[] }> {
  const ports = await freeRange(portCount);
  const { cwd } = writeProject(join(suite.home, 'project'), {
    ports,
    launch: {
      profiles: {
        quitter: { args: '--exit-after 2500 --exit-code 3' },
        client: {
          args: '--version-tag 1.{index} --name "Client $ROLE"',
          env: { ROLE: '{index}' },
          readyTimeoutMs: 30000,
        },
        // index 0 is up at once; 1 and 2 need 10 s and 20 s, past the profile's 6 s
        laggard: { args: '--slow-start {index}0000', readyTimeoutMs: 6000 },
      },
    },
  });
  return { cwd, ports };
}

async function launch(h: McpHandle, args: Record<string, unknown> = {}) {
  const r = await call(h, 'launch_instance', args, 90000);
  if (r.isError) throw new Error(r.text);
  for (const i of (r.json.instances as Array<{ pid: number }> | undefined) ?? [r.json as { pid: number }])
    suite.trackGroup(i.pid);
  return r.json;
}

/** The command line of a pid, NULs as spaces. */
const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();

async function exitedOn(h: McpHandle, port: number) {
  return waitFor(
    `port ${port} under exited`,
    async () => {
      const list = (await call(h, 'list_instances')).json;
      return (list.exited as Array<Record<string, any>>).find((e) => e.port === port);
    },
    15000,
    200,
  );
}

test('a killed game is reported as GameExited with its facts everywhere: calls, the exited list and stop', async () => {
  const { cwd } = await project();
  const h = await suite.open(cwd, ['--no-scan']);
  const inst = await launch(h);
  // The pid is the game itself (not a shell): launched.json and list_instances agree.
  expect(cmdline(inst.pid)).toContain(EXAMPLE_GAME);
  const file = JSON.parse(readFileSync(homePaths(suite.home).launchedJson, 'utf8'));
  expect(file.instances.map((i: { port: number; pid: number }) => [i.port, i.pid])).toEqual([[inst.port, inst.pid]]);
  const before = (await call(h, 'list_instances')).json;
  expect(before.live.find((l: { port: number }) => l.port === inst.port)).toMatchObject({
    pid: inst.pid,
    launchedByThisBridge: true,
  });
  const start = await call(h, 'call_tool', { name: 'start' });
  expect(start.json).toMatchObject({ port: inst.port, applied: true, commandId: 1 });

  process.kill(inst.pid, 'SIGKILL');
  expect(await waitGone(inst.pid, 5000)).toBe(true);
  expect(await healthOk(inst.port)).toBe(false); // killing that pid took the game down

  const got = await call(h, 'call_tool', { name: 'get_state' }); // no port: the one this session launched
  reportFigures('evidence', `KILLED GAME: call_tool get_state →\n${got.text}`);
  expect(got.isError).toBe(true);
  expect(got.text).toMatch(
    new RegExp(
      `^GameExited: The game on port ${inst.port} \\(Crate Stack, pid ${inst.pid}\\) was killed by signal SIGKILL at \\S+Z, after running [\\d.]+s; the last command it confirmed was #1 'start'`,
    ),
  );
  expect(got.text).toContain(`launch_instance {restart: ${inst.port}}`);
  expect(got.text).toContain(`instance_log {port: ${inst.port}}`);
  expect(got.text).toMatch(/Last output:\n(.|\n)*listening on 127\.0\.0\.1/);
  expect(got.text).not.toContain('7777');

  const listed = (await call(h, 'list_instances')).json;
  reportFigures('evidence', `KILLED GAME: list_instances.exited →\n${JSON.stringify(listed.exited, null, 1)}`);
  expect(listed.exited).toEqual([
    expect.objectContaining({
      port: inst.port,
      pid: inst.pid,
      how: 'killed by signal SIGKILL',
      signal: 'SIGKILL',
      exitCode: null,
      owner: 'you',
    }),
  ]);
  expect(listed.stale.filter((s: { port: number }) => s.port === inst.port)).toEqual([]);
  expect(listed.live.filter((s: { port: number }) => s.port === inst.port)).toEqual([]);

  const stop = await call(h, 'stop_instance', {});
  reportFigures('evidence', `KILLED GAME: stop_instance → ${stop.text}`);
  expect(stop.json).toEqual({
    port: inst.port,
    stopped: true,
    how: 'had already exited (signal SIGKILL)',
    view: 'debug',
  });
  const log = (await call(h, 'instance_log', {})).json;
  expect(log).toMatchObject({ port: inst.port, running: false, exited: { how: 'killed by signal SIGKILL' } });
  // The facts outlive the daemon.
  const daemon = await suite.daemonPid();
  process.kill(daemon, 'SIGKILL');
  await waitGone(daemon, 5000);
  const again = await call(h, 'call_tool', { port: inst.port, name: 'get_state' }, 60000);
  expect(again.text).toMatch(new RegExp(`^GameExited: The game on port ${inst.port} .* was killed by signal SIGKILL`));
}, 120000);

/** A project whose gamebridge.json runs `command` (with `files` beside it) on one free port. */
async function projectRunning(command: string, files: Record<string, string> = {}): Promise<string> {
  const [port] = await freeRange(1);
  const cwd = join(suite.home, 'wrapped');
  mkdirSync(cwd, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text);
  writeFileSync(
    join(cwd, 'gamebridge.json'),
    JSON.stringify({ name: 'Crate Stack', launch: { command, portRange: String(port), readyTimeoutMs: 30000 } }),
  );
  return cwd;
}

test("behind a wrapper, only the game's own exit is reported as the game's: `cd dir && game` is the game itself, make is not", async () => {
  const game = `"${process.execPath}" "${EXAMPLE_GAME}" --port`;
  // A plain list: the game is exec'd, so the process the daemon spawned (the group leader) is the game.
  const listed = await projectRunning(`cd "${suite.home}" && ${game} {port}`);
  const h = await suite.open(listed, ['--no-scan']);
  const inst = await launch(h);
  const saved = JSON.parse(readFileSync(homePaths(suite.home).launchedJson, 'utf8')).instances[0];
  expect(cmdline(inst.pid)).toContain(EXAMPLE_GAME);
  expect(saved).toMatchObject({ pid: inst.pid, pgid: inst.pid });
  process.kill(inst.pid, 'SIGKILL');
  expect(await exitedOn(h, inst.port)).toMatchObject({
    signal: 'SIGKILL',
    exitCode: null,
    how: 'killed by signal SIGKILL',
  });
  await h.close();

  // make runs the game as its child and exits 2 whatever ended it: that 2 is make's, said as such.
  const made = await projectRunning('make -s run PORT={port}', { Makefile: `run:\n\t${game} $(PORT)\n` });
  const m = await suite.open(made, ['--no-scan']);
  const under = await launch(m);
  expect(cmdline(under.pid)).toContain(EXAMPLE_GAME);
  const wrapperPid = JSON.parse(readFileSync(homePaths(suite.home).launchedJson, 'utf8')).instances.find(
    (i: { port: number }) => i.port === under.port,
  ).pgid;
  expect(cmdline(wrapperPid)).toMatch(/^make /);
  process.kill(under.pid, 'SIGKILL');
  const rec = await exitedOn(m, under.port);
  expect(rec).toMatchObject({
    exitCode: null,
    signal: null,
    wrapper: { pid: wrapperPid, exitCode: 2, signal: null },
    how: 'exited (status unknown; its launch wrapper reported code 2)',
  });
  const got = await gameCall(m, under.port, 'get_state');
  reportFigures('evidence', `UNDER make: ${got.text.split('\n')[0]}`);
  expect(got.text).toMatch(
    new RegExp(
      `^GameExited: The game on port ${under.port} \\(Crate Stack, pid ${under.pid}\\) exited \\(its own exit status cannot be read under the wrapper that launched it, pid ${wrapperPid}, which reported code 2\\) at `,
    ),
  );
  expect(got.text).not.toMatch(/exited with code 2/);
  expect((await call(m, 'stop_instance', { port: under.port })).json.how).toBe(
    'had already exited (exit status unknown; its launch wrapper reported code 2)',
  );
}, 120000);

test('a game that exits by itself with code 3: GameExited says so, with its last words', async () => {
  const { cwd } = await project();
  const h = await suite.open(cwd, ['--no-scan']);
  const inst = await launch(h, { profile: 'quitter' });
  expect(inst.profile).toBe('quitter');
  const rec = await exitedOn(h, inst.port);
  expect(rec).toMatchObject({ exitCode: 3, signal: null, how: 'exited with code 3', profile: 'quitter' });
  expect(rec.lastLines.join('\n')).toContain('fatal: giving up after 2500ms (exit code 3)');
  const got = await gameCall(h, inst.port, 'get_state');
  expect(got.text).toMatch(
    new RegExp(
      `^GameExited: The game on port ${inst.port} \\(Crate Stack, profile quitter #0, pid ${inst.pid}\\) exited with code 3 at `,
    ),
  );
  const listToolsets = await call(h, 'list_toolsets', { port: inst.port });
  expect(listToolsets.text).toMatch(/^GameExited: /);
  expect((await call(h, 'stop_instance', { port: inst.port })).json.how).toBe('had already exited (code 3)');
}, 90000);

test('a game killed by a signal other than SIGKILL (SIGHUP) is reported with that signal', async () => {
  const { cwd } = await project();
  const h = await suite.open(cwd, ['--no-scan']);
  const inst = await launch(h);
  process.kill(inst.pid, 'SIGHUP');
  const rec = await exitedOn(h, inst.port);
  expect(rec).toMatchObject({ signal: 'SIGHUP', how: 'killed by signal SIGHUP' });
  expect((await gameCall(h, inst.port, 'drop', { x: 3 })).text).toMatch(/^GameExited: .* was killed by signal SIGHUP/);
}, 90000);

test('a game that crashes during wait_for fails the wait with GameExited at once, not a timeout', async () => {
  const { cwd } = await project();
  const h = await suite.open(cwd, ['--no-scan']);
  const inst = await launch(h);
  const t0 = Date.now();
  const waiting = gameCall(h, inst.port, 'wait_for', { path: 'game.score', equals: 999999, timeoutMs: 20000 }, 40000);
  setTimeout(() => process.kill(inst.pid, 'SIGKILL'), 800);
  const r = await waiting;
  const took = Date.now() - t0;
  reportFigures('evidence', `CRASH IN wait_for (${took} ms): ${r.text.split('\n')[0]}`);
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(new RegExp(`^GameExited: The game on port ${inst.port} .* was killed by signal SIGKILL`));
  expect(took).toBeLessThan(8000);
}, 90000);

test("restart relaunches a running or exited game on its port, dropping an exited one's record", async () => {
  const { cwd } = await project();
  const h = await suite.open(cwd, ['--no-scan']);
  const first = await launch(h);
  const second = await launch(h, { restart: first.port });
  expect(second).toMatchObject({ port: first.port, previous: { pid: first.pid, how: 'closed cleanly' } });
  expect(second.pid).not.toBe(first.pid);
  expect(alive(first.pid)).toBe(false);
  expect((await gameCall(h, first.port, 'get_state', { path: 'frame' })).isError).toBe(false);

  process.kill(second.pid, 'SIGKILL');
  await exitedOn(h, first.port);
  const third = await launch(h, { restart: first.port });
  expect(third).toMatchObject({
    port: first.port,
    previous: { pid: second.pid, how: 'had already exited (signal SIGKILL)' },
  });
  const list = (await call(h, 'list_instances')).json;
  expect(list.exited).toEqual([]);
  expect(list.live.map((l: { port: number; pid: number }) => [l.port, l.pid])).toEqual([[first.port, third.pid]]);
  // restart of a port nothing was launched on says so
  const nothing = await call(h, 'launch_instance', { restart: 1 });
  expect(nothing.text).toMatch(/^BridgeUsageError: Nothing to restart on port 1/);
}, 120000);

test('profile with count 3: three ports, three pids, {index} in args and env, all listed, all stopped', async () => {
  const { cwd, ports } = await project(5);
  const h = await suite.open(cwd, ['--no-scan']);
  const r = await launch(h, { profile: 'client', count: 3 });
  const all = r.instances as Array<{ port: number; pid: number; name: string; version: string; index: number }>;
  expect(r.count).toBe(3);
  expect(new Set(all.map((i) => i.port)).size).toBe(3);
  expect(new Set(all.map((i) => i.pid)).size).toBe(3);
  for (const i of all) expect(ports).toContain(i.port);
  expect(all.map((i) => [i.index, i.name, i.version]).sort()).toEqual([
    [0, 'Client 0', '1.0'],
    [1, 'Client 1', '1.1'],
    [2, 'Client 2', '1.2'],
  ]);
  for (const i of all) expect(cmdline(i.pid)).toContain(EXAMPLE_GAME);
  const live = (await call(h, 'list_instances')).json.live as Array<{
    port: number;
    pid: number;
    launchedByThisBridge: boolean;
  }>;
  for (const i of all)
    expect(live.find((l) => l.port === i.port)).toMatchObject({ pid: i.pid, launchedByThisBridge: true });
  for (const i of all)
    expect((await call(h, 'stop_instance', { port: i.port })).json).toMatchObject({
      stopped: true,
      how: 'closed cleanly',
    });
  for (const i of all) expect(alive(i.pid)).toBe(false);
}, 120000);

test('a launch of several where one fails fails as a whole: no sibling is left running, the failure is named', async () => {
  const { cwd } = await project(5);
  const h = await suite.open(cwd, ['--no-scan']);
  const r = await call(h, 'launch_instance', { profile: 'laggard', count: 3 }, 90000);
  reportFigures('evidence', `FAILED LAUNCH OF 3:\n${r.text}`);
  expect(r.isError).toBe(true);
  const lines = r.text.split('\n');
  expect(lines[0]).toMatch(
    /^LaunchFailed: Launch failed on port \d+ \(profile laggard, index [12]\): the game did not answer \/health within 6000ms\.$/,
  );
  expect(lines[1]).toMatch(
    /^The launch of 3 failed as a whole: instance [12] failed; the one that had started was stopped: \d+ \(closed cleanly\)\.$/,
  );
  expect(r.text).toMatch(/\nCommand: .*--slow-start [12]0000\n/);
  // Nothing is left: every game pid the logs name is gone, and nothing is listed.
  const logsDir = homePaths(suite.home).logsDir;
  const { readdirSync } = await import('node:fs');
  const pids = readdirSync(logsDir).flatMap((f) =>
    [...readFileSync(join(logsDir, f), 'utf8').matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1])),
  );
  expect(pids.length).toBe(3);
  for (const pid of pids) expect(await waitGone(pid, 5000)).toBe(true);
  const list = (await call(h, 'list_instances')).json;
  expect(list.live).toEqual([]);
  expect(list.exited).toEqual([]);
}, 120000);

test('a game that died while no daemon was running is recorded by the next daemon with what can be known', async () => {
  const { cwd } = await project();
  const h = await suite.open(cwd, ['--no-scan']);
  const inst = await launch(h);
  await call(h, 'call_tool', { name: 'start' });
  // A confirmation reaches launched.json within a second (saves are throttled), not at once.
  const file = homePaths(suite.home).launchedJson;
  await waitFor(
    'lastCommand in launched.json',
    () => JSON.parse(readFileSync(file, 'utf8')).instances[0]?.lastCommand,
    5000,
    100,
  );
  const daemon = await suite.daemonPid();
  process.kill(daemon, 'SIGKILL');
  await waitGone(daemon, 5000);
  process.kill(inst.pid, 'SIGKILL');
  await waitGone(inst.pid, 5000);
  const got = await call(h, 'call_tool', { name: 'get_state' }, 60000); // the proxy starts a new daemon
  reportFigures('evidence', `DIED WHILE NO DAEMON RAN: ${got.text.split('\n')[0]}`);
  expect(got.text).toMatch(
    new RegExp(
      `^GameExited: The game on port ${inst.port} \\(Crate Stack, pid ${inst.pid}\\) exited while no bridge daemon was watching it some time after \\S+Z, after running at least [\\d.]+s; the last command it confirmed was #1 'start'`,
    ),
  );
  const rec = (await call(h, 'list_instances')).json.exited[0];
  expect(rec).toMatchObject({
    port: inst.port,
    exitedAt: null,
    exitCode: null,
    signal: null,
    how: 'exited while no daemon watched it',
  });
}, 120000);
