/**
 * Lifecycles (docs/RELIABILITY.md section 2): client restart and daemon SIGTERM in the
 * middle of a launch, a version handover under load, detachedTtlMs and idleExitMs expiry, a
 * stale lock, a daemon.json naming a dead or foreign process, an unwritable registry.
 * After each test nothing it started may be left running (suite 5).
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { call, connect, gameCall, type McpHandle } from '../helpers/mcp.js';
import { freePort, freeRange } from '../helpers/ports.js';
import { alive, CLI, EXAMPLE_GAME, removeDir, tempHome, waitFor, waitGone } from '../helpers/procs.js';
import { daemonFacts, gameState, liveDaemon, processesOf, reapAndReport, servingDaemonsOf } from '../helpers/fault.js';
import { writeProject } from '../helpers/project.js';

const run = promisify(execFile);
const VERSION = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')).version as string;

let home: string;
let env: Record<string, string>;
const handles: McpHandle[] = [];
const started = new Set<number>();
const servers: Array<Server | ReturnType<typeof createTcpServer>> = [];

beforeEach(() => {
  home = tempHome('gb-life-');
  env = { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '600000' };
});

afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
  for (const s of servers.splice(0)) s.close();
  // A daemon outlives its clients by design; `stop` is how it ends, and it must take its games along.
  const d = daemonFacts(home);
  if (d && alive(d.pid)) {
    await run(process.execPath, [CLI, 'stop'], { env: { ...process.env, ...env } }).catch(() => undefined);
    await waitGone(d.pid, 15000);
  }
  const left = await reapAndReport(home, started);
  started.clear();
  chmodRecursiveOpen(home);
  removeDir(home);
  expect(left).toEqual([]); // suite 5: no game, daemon or proxy outlives its test
});

function chmodRecursiveOpen(dir: string): void {
  try {
    chmodSync(dir, 0o700);
  } catch {
    /* gone */
  }
}

/** A project in this test's home launching the example game on `ports`. */
function exampleProject(ports: number[], gameArgs = '', dir = 'project'): string {
  return writeProject(join(home, dir), { ports, gameArgs }).root;
}

async function open(cwd?: string, extraEnv: Record<string, string> = {}): Promise<McpHandle> {
  const h = await connect({ env: { ...env, ...extraEnv }, cwd });
  handles.push(h);
  if (h.pid) started.add(h.pid);
  return h;
}

async function status(
  e: Record<string, string> = env,
): Promise<{ pid: number; version: string; instances: Array<{ port: number; pid: number; owner: string }> }> {
  return JSON.parse((await run(process.execPath, [CLI, 'status', '--json'], { env: { ...process.env, ...e } })).stdout);
}

/** The example game's processes for this home (launched games inherit the client's GAME_BRIDGE_HOME). */
function gamesOf(): number[] {
  return processesOf(home)
    .filter((p) => p.args.includes(EXAMPLE_GAME) && !p.args.startsWith('/bin/sh'))
    .map((p) => p.pid);
}

test('daemon SIGTERM while a launch is still waiting for /health: the starting game is reaped too', async () => {
  const project = exampleProject(await freeRange(2), '--slow-start 8000');
  const h = await open(project);
  const launching = call(h, 'launch_instance', {}, 60000);
  const game = await waitFor('the game process', () => gamesOf()[0], 20000);
  started.add(game);
  const daemon = await liveDaemon(home);
  started.add(daemon.pid);
  process.kill(daemon.pid, 'SIGTERM');
  expect(await waitGone(daemon.pid, 15000)).toBe(true);
  // the client gets one answer (the launch did not complete), and the game did not survive
  const r = await launching;
  expect(r.isError).toBe(true);
  expect(await waitGone(game, 5000)).toBe(true);
  expect(gamesOf()).toEqual([]);
});

test('client restart mid-launch: the launch is cancelled with its session and the starting game stopped, never orphaned', async () => {
  // The game would answer /health only after 8 s, so the client is certainly gone first.
  const project = exampleProject(await freeRange(2), '--slow-start 8000');
  const h = await open(project);
  void call(h, 'launch_instance', {}, 60000).catch(() => undefined);
  const game = await waitFor('the game process', () => gamesOf()[0], 20000);
  started.add(game);
  await h.close(); // the client goes away before the launch answered
  expect(await waitGone(game, 6000)).toBe(true); // stopped, not left to finish its slow start
  const h2 = await open(project);
  await h2.client.listTools();
  started.add((await liveDaemon(home)).pid);
  expect((await status()).instances).toEqual([]);
  expect(gamesOf()).toEqual([]);
});

test('version handover under load: calls keep being answered, bumps apply once, the launched game is re-adopted', async () => {
  const oldEnv = { GAME_BRIDGE_VERSION_OVERRIDE: '0.0.1-old' };
  const project = exampleProject(await freeRange(2));
  // an old-version proxy starts an old-version daemon and launches the game through it
  const old = await open(project, oldEnv);
  const launched = await call(old, 'launch_instance', {}, 60000);
  expect(launched.isError ? launched.text : 'ok').toBe('ok');
  const port = launched.json.port as number;
  const gamePid = launched.json.pid as number;
  started.add(gamePid);
  const oldDaemon = await liveDaemon(home);
  started.add(oldDaemon.pid);
  expect(oldDaemon.version).toBe('0.0.1-old');

  // load from the old client while a new client arrives and asks for a handover
  let stop = false;
  const told = new Map<string, string>();
  const safeErrors: string[] = [];
  const load = (async () => {
    for (let i = 0; !stop; i++) {
      const tag = `h${i}`;
      const r = await gameCall(old, port, 'bump', { tag }, 60000);
      told.set(tag, r.isError ? r.text : 'ok');
      const s = await gameCall(old, port, 'get_state', { path: 'game.bumps' }, 60000);
      if (s.isError) safeErrors.push(s.text);
    }
  })();
  await waitFor('the load running on the old daemon', () => told.size >= 2, 20000);
  const fresh = await open(project);
  const tools = await fresh.client.listTools();
  expect(tools.tools.length).toBe(7);
  expect(await waitGone(oldDaemon.pid, 15000)).toBe(true);
  const now = await liveDaemon(home, oldDaemon.pid);
  started.add(now.pid);
  const answeredBefore = told.size;
  await waitFor('the load running on the new daemon', () => told.size >= answeredBefore + 3, 20000);
  stop = true;
  await load;

  expect(now.version).toBe(VERSION);
  expect(alive(gamePid)).toBe(true);
  expect((await status()).instances.map((i) => i.port)).toContain(port);
  const counted = (await gameState(port)).game.bumps;
  for (const [tag, answer] of told) {
    if (answer === 'ok') expect(`${tag}=${counted[tag]}`).toBe(`${tag}=1`);
    else expect(answer).toMatch(/^CallInterrupted: /);
    expect(counted[tag] ?? 0).toBeLessThanOrEqual(1);
  }
  expect(safeErrors).toEqual([]);
  // a session on the new daemon drives the re-adopted game
  expect((await gameCall(fresh, port, 'get_state', { path: 'game.score' })).isError).toBe(false);
  await waitFor('one daemon for the home', () => servingDaemonsOf(home).length === 1, 15000);
  await run(process.execPath, [CLI, 'stop'], { env: { ...process.env, ...env } });
  expect(await waitGone(gamePid, 15000)).toBe(true);
});

test('detachedTtlMs reaps a game its client left behind, then idleExitMs ends the daemon', async () => {
  const project = exampleProject(await freeRange(2));
  const h = await open(project, { GAME_BRIDGE_DETACHED_TTL_MS: '1500', GAME_BRIDGE_IDLE_EXIT_MS: '1500' });
  const launched = await call(h, 'launch_instance', {}, 60000);
  expect(launched.isError ? launched.text : 'ok').toBe('ok');
  const gamePid = launched.json.pid as number;
  started.add(gamePid);
  const daemon = await liveDaemon(home);
  started.add(daemon.pid);
  await h.close();
  // detached → reaped after the TTL; with no session and no instance left the daemon goes too
  expect(await waitGone(gamePid, 20000)).toBe(true);
  expect(await waitGone(daemon.pid, 20000)).toBe(true);
  expect(daemonFacts(home)).toBeUndefined();
});

test('the detached-TTL sweep reaps a game its client left behind, never one whose session is still connected', async () => {
  const ttl = { GAME_BRIDGE_DETACHED_TTL_MS: '1500' };
  const project = exampleProject(await freeRange(2));
  const keeper = await open(project, ttl);
  const kept = await call(keeper, 'launch_instance', {}, 60000); // the lower port: swept first
  expect(kept.isError ? kept.text : 'ok').toBe('ok');
  started.add(kept.json.pid);
  const leaver = await open(project, ttl);
  const left = await call(leaver, 'launch_instance', {}, 60000);
  expect(left.isError ? left.text : 'ok').toBe('ok');
  started.add(left.json.pid);
  started.add((await liveDaemon(home)).pid);
  await leaver.close();
  // The left game is reaped once its TTL ran out; a sweep that also timed the live session's
  // game (launched earlier, so detached for longer) would have reaped that one first.
  expect(await waitGone(left.json.pid, 20000)).toBe(true);
  expect(alive(kept.json.pid)).toBe(true);
  const instances = (await status()).instances;
  expect(instances.map((i) => [i.port, i.owner === 'detached'])).toEqual([[kept.json.port, false]]);
  expect((await gameCall(keeper, kept.json.port, 'get_state', { path: 'game.score' })).isError).toBe(false);
});

test('a stale lock from a crashed daemon (no daemon.json) is taken over and the client is served', async () => {
  const lock = join(home, 'daemon', 'daemon.lock');
  mkdirSync(lock, { recursive: true, mode: 0o700 });
  const long = new Date(Date.now() - 120_000);
  utimesSync(lock, long, long); // a lock nobody has refreshed for two minutes
  const h = await open();
  const r = await call(h, 'list_instances', { scan: false });
  expect(r.isError).toBe(false);
  started.add((await liveDaemon(home)).pid);
});

test('a kill -9 leaves lock and daemon.json behind: the next client is served by a new daemon', async () => {
  const h = await open();
  await h.client.listTools();
  const first = await liveDaemon(home);
  started.add(first.pid);
  await h.close();
  process.kill(first.pid, 'SIGKILL');
  await waitGone(first.pid);
  expect(daemonFacts(home)?.pid).toBe(first.pid); // stale file left behind
  const h2 = await open();
  expect((await call(h2, 'list_instances', { scan: false })).isError).toBe(false);
  const second = await liveDaemon(home, first.pid);
  started.add(second.pid);
});

test('daemon.json naming a dead pid, a foreign HTTP server, or a silent TCP listener: the client is still served', async () => {
  // a foreign web server answering every request with 404
  const foreign = createServer((_, res) => res.writeHead(404).end('not a bridge'));
  foreign.on('upgrade', (_req, socket: Socket) => socket.end('HTTP/1.1 404 Not Found\r\n\r\n'));
  // a listener that accepts and then says nothing at all
  const silent = createTcpServer(() => undefined);
  servers.push(foreign, silent);
  const foreignPort = await listen(foreign);
  const silentPort = await listen(silent);
  const deadPort = await freePort();
  const cases = [
    { pid: 999999, port: deadPort, why: 'dead pid, closed port' },
    { pid: process.pid, port: foreignPort, why: 'a live foreign process, a web server' },
    { pid: process.pid, port: silentPort, why: 'a live foreign process, a silent listener' },
  ];
  for (const c of cases) {
    mkdirSync(join(home, 'daemon'), { recursive: true, mode: 0o700 });
    writeFileSync(
      join(home, 'daemon', 'daemon.json'),
      JSON.stringify({
        pid: c.pid,
        port: c.port,
        token: 'f'.repeat(64),
        version: VERSION,
        startedAt: new Date().toISOString(),
      }),
      { mode: 0o600 },
    );
    const h = await open();
    const r = await call(h, 'list_instances', { scan: false }, 60000);
    expect(`${c.why}: ${r.isError ? r.text : 'served'}`).toBe(`${c.why}: served`);
    const d = await liveDaemon(home, c.pid);
    started.add(d.pid);
    expect(d.port).not.toBe(c.port);
    await h.close();
    await run(process.execPath, [CLI, 'stop'], { env: { ...process.env, ...env } });
    await waitGone(d.pid, 10000);
  }
}, 120_000); // three daemon starts in a row

test('an unwritable registry does not stop the daemon serving, launching or listing', async () => {
  const registry = join(home, 'ro-registry');
  mkdirSync(registry, { mode: 0o500 });
  // root ignores modes: a registry path under a plain file fails for everyone
  const blocked = join(home, 'a-file');
  writeFileSync(blocked, 'not a directory');
  for (const dir of [registry, join(blocked, 'instances')]) {
    const project = exampleProject(await freeRange(2), '', `p-${dir.length}`);
    const h = await open(project, { GAME_BRIDGE_INSTANCES: dir });
    const listed = await call(h, 'list_instances', { scan: false });
    expect(listed.isError).toBe(false);
    const launched = await call(h, 'launch_instance', {}, 60000);
    expect(launched.isError ? launched.text : 'ok').toBe('ok');
    started.add(launched.json.pid);
    expect((await gameCall(h, launched.json.port, 'get_state', { path: 'game.score' })).isError).toBe(false);
    expect((await call(h, 'stop_instance', { port: launched.json.port }, 30000)).isError).toBe(false);
    await h.close();
  }
  started.add((await liveDaemon(home)).pid);
});

function listen(s: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as { port: number }).port)));
}
