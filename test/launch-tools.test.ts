/**
 * launch_instance / stop_instance / instance_log through the real stdio server (--no-daemon),
 * and the in-process server reaping every game it launched when it shuts down.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { call, connect, gameCall } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { writeProject } from './helpers/project.js';
import { alive, EXAMPLE_GAME, removeDir, ROOT, tempHome, waitGone } from './helpers/procs.js';

const dirs: string[] = [];
const pids: number[] = [];

afterAll(async () => {
  for (const pid of pids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone */
    }
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  for (const d of dirs) removeDir(d);
});

async function project(extraArgs = '', readyTimeoutMs = 20000) {
  const home = tempHome();
  dirs.push(home);
  const range = await freeRange(4);
  const { root, cwd } = writeProject(join(home, 'project'), {
    ports: range,
    gameArgs: extraArgs,
    readyTimeoutMs,
    launch: { cwd: '.' },
    subdir: join('a', 'b'),
  });
  return { home, range, root, cwd };
}

test('launch from a gamebridge.json two folders up, drive it, read its log, stop it cleanly', async () => {
  const p = await project('--slow-start 1200');
  const h = await connect({ args: ['--no-daemon', '--no-scan'], env: { GAME_BRIDGE_HOME: p.home }, cwd: p.cwd });
  try {
    const progress: unknown[] = [];
    const res = (await h.client.callTool({ name: 'launch_instance', arguments: {} }, undefined, {
      timeout: 30000,
      onprogress: (x) => progress.push(x),
    })) as any;
    expect(res.isError).toBeFalsy();
    const inst = res.structuredContent;
    pids.push(inst.pid);
    expect(p.range).toContain(inst.port);
    expect(inst).toMatchObject({ name: 'Crate Stack', cwd: p.root });
    expect(inst.logFile).toContain(join(p.home, 'logs'));
    expect(progress.length).toBeGreaterThan(0);

    // port resolution: the one instance this session launched
    const drop = await call(h, 'call_tool', { name: 'start' });
    expect(drop.json).toMatchObject({ port: inst.port, applied: true });
    const list = await call(h, 'list_instances');
    expect(list.json.live).toEqual([
      expect.objectContaining({ port: inst.port, launchedByThisBridge: true, owner: 'you' }),
    ]);

    const log = await call(h, 'instance_log', { lines: 50 });
    expect(log.json.lines.join('\n')).toMatch(/crate-stack: listening on 127\.0\.0\.1:/);

    const regDir = join(p.home, 'instances');
    expect(readdirSync(regDir).length).toBe(1);
    const stop = await call(h, 'stop_instance', {});
    expect(stop.json).toEqual({ port: inst.port, stopped: true, how: 'closed cleanly', view: 'debug' });
    expect(await waitGone(inst.pid)).toBe(true);
    expect(readdirSync(regDir)).toEqual([]);
    const gone = await gameCall(h, inst.port, 'health');
    expect(gone.text).toMatch(/^GameOffline/);
    // the log outlives the game
    const after = await call(h, 'instance_log', { port: inst.port, lines: 5 });
    expect(after.isError).toBe(false);
    expect(after.json).toMatchObject({ port: inst.port, running: false, logFile: inst.logFile });
  } finally {
    await h.close();
  }
});

describe('launch_instance {paused: true}', () => {
  let a: Awaited<ReturnType<typeof call>>;
  let b: typeof a;
  let simFrameOfA: unknown;

  beforeAll(async () => {
    const home = tempHome();
    dirs.push(home);
    const counter = join(ROOT, 'test', 'fixtures', 'counter-game.mjs');
    const ports = await freeRange(4);
    const game = (dir: string, args: string) =>
      writeProject(join(home, dir), {
        ports: ports.slice(0, 2),
        name: 'Counter',
        command: `"${process.execPath}" "${counter}" {port} ${args}`,
      });
    game('kit', '--fps 1000');
    game('old', '--fps 1000 --runs-at-launch');
    const h = await connect({ args: ['--no-daemon', '--no-scan'], env: { GAME_BRIDGE_HOME: home }, cwd: home });
    try {
      a = await call(h, 'launch_instance', { config: 'kit/gamebridge.json', paused: true }, 30000);
      if (a.json?.pid) pids.push(a.json.pid);
      b = await call(h, 'launch_instance', { config: 'old/gamebridge.json', paused: true }, 30000);
      if (b.json?.pid) pids.push(b.json.pid);
      if (!a.isError) simFrameOfA = (await gameCall(h, a.json.port, 'get_state', { path: 'simFrame' })).json.value;
    } finally {
      await h.close();
    }
  }, 60000);

  test('a kit game starts at simFrame 0', () => {
    expect(a.isError).toBeFalsy();
    expect(a.json).toMatchObject({ paused: true, simFrame: 0 });
    expect(a.json.pausedNote).toBeUndefined();
    expect(simFrameOfA).toBe(0);
  });

  test('a game whose kit does not start paused says so and how to pause it', () => {
    expect(b.isError).toBeFalsy();
    expect(b.json).toMatchObject({ paused: false, simFrame: expect.any(Number) });
    expect(b.json.pausedNote).toMatch(/did not start paused .*GAME_BRIDGE_START_PAUSED.*bridge\.pause/);
  });
});

test("a crash at start is loud: exit code, command, log path, the game's own last output", async () => {
  const p = await project('--crash-at-start');
  const h = await connect({ args: ['--no-daemon', '--no-scan'], env: { GAME_BRIDGE_HOME: p.home }, cwd: p.cwd });
  try {
    const r = await call(h, 'launch_instance');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^LaunchFailed: Launch failed on port \d+: the process exited with code 3\./);
    expect(r.text).toContain(EXAMPLE_GAME);
    expect(r.text).toContain(join(p.home, 'logs'));
    expect(r.text).toMatch(/could not open save file/);
  } finally {
    await h.close();
  }
});

test('shutting the --no-daemon server down (stdin closed) leaves zero game processes', async () => {
  const p = await project('--child');
  const h = await connect({ args: ['--no-daemon', '--no-scan'], env: { GAME_BRIDGE_HOME: p.home }, cwd: p.cwd });
  const launched: number[] = [];
  for (let i = 0; i < 2; i++) {
    const r = await call(h, 'launch_instance');
    expect(r.isError).toBe(false);
    launched.push(r.json.pid);
    pids.push(r.json.pid);
  }
  // the in-process server keeps no launched.json: a daemon on the same home re-adopts from it
  expect(existsSync(join(p.home, 'daemon', 'launched.json'))).toBe(false);
  const serverPid = h.pid!;
  await h.close();
  expect(await waitGone(serverPid, 10000)).toBe(true);
  for (const pid of launched) expect(alive(pid)).toBe(false);
  expect(existsSync(join(p.home, 'instances')) ? readdirSync(join(p.home, 'instances')) : []).toEqual([]);
});

test('SIGTERM to the --no-daemon server reaps its games too', async () => {
  const p = await project();
  const h = await connect({ args: ['--no-daemon', '--no-scan'], env: { GAME_BRIDGE_HOME: p.home }, cwd: p.cwd });
  const r = await call(h, 'launch_instance');
  pids.push(r.json.pid);
  process.kill(h.pid!, 'SIGTERM');
  expect(await waitGone(h.pid!, 10000)).toBe(true);
  expect(await waitGone(r.json.pid, 5000)).toBe(true);
  await h.close();
});
