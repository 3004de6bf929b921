/**
 * The launcher with real processes: the example game (dist/examples/crate-stack) started
 * from a gamebridge.json, through a shell, into its own process group. Every test has its own
 * GAME_BRIDGE_HOME and ports, and kills what it started by pid / process group.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { Launcher, findDeclaration, type ExitRecord, type LaunchedInstance } from '../daemon/launcher/index.js';
import { readLaunchedFile } from '../daemon/launcher/persist.js';
import { GameClient } from '../daemon/game/client.js';
import { BridgeError, type LaunchFacts } from '../shared/errors.js';
import { homePaths } from '../shared/paths.js';
import { freePort, freeRange } from './helpers/ports.js';
import { writeProject, type Project, type ProjectOptions } from './helpers/project.js';
import {
  EXAMPLE_GAME,
  Reaper,
  alive,
  groupGone,
  healthOk,
  removeDir,
  startExampleGame,
  tempHome,
  waitFor,
  waitGone,
} from './helpers/procs.js';

const GAME = `node "${EXAMPLE_GAME}" --port {port}`;

let home: string;
let launcher: Launcher;
const reaper = new Reaper();
/** process groups of everything launched (the launch pid leads its group) */
const groups = new Set<number>();
const cleanups: Array<() => void | Promise<void>> = [];

function clientEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (typeof v === 'string') env[k] = v;
  env.GAME_BRIDGE_HOME = home;
  delete env.GAME_BRIDGE_INSTANCES;
  return env;
}

/** A project: gamebridge.json in `root`, and a cwd two folders below it. */
function project(o: Omit<ProjectOptions, 'name' | 'subdir'>): Project {
  return writeProject(join(home, 'project'), { name: 'Crate Stack (declared)', subdir: join('src', 'deep'), ...o });
}

function track(inst: { pid: number } | LaunchedInstance): void {
  groups.add(inst.pid);
}

async function launch(cwd: string, extra: Partial<Parameters<Launcher['launch']>[0]> = {}): Promise<LaunchedInstance> {
  const inst = await launcher.launch({ cwd, env: clientEnv(), ...extra });
  track(inst);
  return inst;
}

/** A pid the game printed into its log ("(pid N)" / "child pid N"). */
async function pidFromLog(logFile: string, pattern: RegExp): Promise<number> {
  const m = await waitFor(
    `${pattern} in ${logFile}`,
    () => pattern.exec(existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    10000,
  );
  const pid = Number(m[1]);
  groups.add(pid);
  return pid;
}

async function rejection(p: Promise<unknown>): Promise<BridgeError> {
  try {
    await p;
  } catch (e) {
    return e as BridgeError;
  }
  throw new Error('expected a rejection');
}

beforeEach(() => {
  home = tempHome('gb-launcher-');
  launcher = new Launcher({ home });
});

afterEach(async () => {
  launcher.dispose();
  for (const c of cleanups.splice(0)) await c();
  for (const g of groups) {
    for (const target of [-g, g]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
  await Promise.all([...groups].map((g) => waitGone(g, 3000)));
  groups.clear();
  await reaper.reap();
  removeDir(home);
});

test('launches from a gamebridge.json two folders above cwd, logs its output, stops it cleanly', async () => {
  const range = await freeRange(4);
  const { root, cwd, file } = project({
    command: `${GAME} --name "$GAME_LABEL"`,
    ports: range,
    readyTimeoutMs: 20000,
    launch: { cwd: '.', env: { GAME_LABEL: 'Crates on {port}' } },
  });
  const inst = await launch(cwd, { owner: 'session-1' });

  expect(range).toContain(inst.port);
  expect(inst.name).toBe(`Crates on ${inst.port}`); // from the game's manifest; env {port} substituted
  expect(inst.version).toBe('1.0.0');
  expect(inst.cwd).toBe(root);
  expect(inst.declaration).toBe(file);
  expect(inst.owner).toBe('session-1');
  expect(inst.command).toContain(`--port ${inst.port}`);
  expect(inst.logFile.startsWith(join(home, 'logs', `instance-${inst.port}-`))).toBe(true);
  expect(await healthOk(inst.port)).toBe(true);
  expect(launcher.isLaunched(inst.port)).toBe(true);
  expect(launcher.list().map((i) => i.port)).toEqual([inst.port]);

  // launched.json: 0600, atomically written, in a 0700 daemon dir
  const paths = homePaths(home);
  expect(statSync(paths.launchedJson).mode & 0o777).toBe(0o600);
  expect(statSync(paths.daemonDir).mode & 0o777).toBe(0o700);
  const saved = JSON.parse(readFileSync(paths.launchedJson, 'utf8'));
  expect(saved.instances.map((i: LaunchedInstance) => [i.port, i.pid, i.logFile])).toEqual([
    [inst.port, inst.pid, inst.logFile],
  ]);

  // the game's own output reaches the log, and registered itself in the client's registry
  const gamePid = await pidFromLog(inst.logFile, /\(pid (\d+)\)/);
  const log = launcher.log(inst.port);
  expect(log.logFile).toBe(inst.logFile);
  expect(log.lines.join('\n')).toContain(`crate-stack: listening on 127.0.0.1:${inst.port}`);
  expect(launcher.log(inst.port, 1).lines).toHaveLength(1);
  const registryEntry = join(home, 'instances', `${gamePid}.json`);
  await waitFor('registry entry', () => existsSync(registryEntry));

  const stopped = await launcher.stop(inst.port);
  expect(stopped).toEqual({ port: inst.port, stopped: true, how: 'closed cleanly' });
  expect(alive(gamePid)).toBe(false);
  expect(alive(inst.pid)).toBe(false);
  expect(existsSync(registryEntry)).toBe(false);
  expect(await healthOk(inst.port)).toBe(false);
  expect(launcher.isLaunched(inst.port)).toBe(false);
  expect(JSON.parse(readFileSync(paths.launchedJson, 'utf8')).instances).toEqual([]);
  // the log of a stopped game stays readable
  expect(launcher.log(inst.port).lines.join('\n')).toContain('close requested (command)');
});

test('a game that crashes at start fails loudly: exit code, command, cwd, log path, its own last output', async () => {
  const [port] = await freeRange(1);
  const { root, cwd } = project({ command: `${GAME} --crash-at-start`, ports: [port], readyTimeoutMs: 20000 });
  const err = await rejection(launch(cwd));
  expect(err).toBeInstanceOf(BridgeError);
  expect(err.kind).toBe('LaunchFailed');
  const lines = err.message.split('\n');
  expect(lines[0]).toBe(`Launch failed on port ${port}: the process exited with code 3.`);
  expect(lines).toContain(`Command: node "${EXAMPLE_GAME}" --port ${port} --crash-at-start`);
  expect(lines).toContain(`Working directory: ${root}`);
  const logLine = lines.find((l) => l.startsWith('Log: '))!;
  const logFile = logLine.slice('Log: '.length);
  expect(existsSync(logFile)).toBe(true);
  expect(lines).toContain('Last output:');
  expect(err.message).toContain('crate-stack: fatal: could not open save file');
  expect(err.data).toMatchObject({ port, exitCode: 3, logFile });
  expect(launcher.isLaunched(port)).toBe(false);
  expect(launcher.log(port).lines.join('\n')).toContain('could not open save file');
});

test('a game slower than readyTimeoutMs gets a clear timeout error and is reaped', async () => {
  const [port] = await freeRange(1);
  const { cwd } = project({ command: `${GAME} --slow-start 60000`, ports: [port], readyTimeoutMs: 1500 });
  const err = await rejection(launch(cwd));
  expect(err.kind).toBe('LaunchFailed');
  expect(err.message.split('\n')[0]).toBe(
    `Launch failed on port ${port}: the game did not answer /health within 1500ms.`,
  );
  expect(err.message).toContain('slow start: waiting 60000ms');
  const pid = (err.data as LaunchFacts).pid as number;
  groups.add(pid);
  const gamePid = await pidFromLog((err.data as LaunchFacts).logFile as string, /\(pid (\d+)\)/);
  expect(await waitGone(pid, 3000)).toBe(true);
  expect(await waitGone(gamePid, 3000)).toBe(true);
  expect(await groupGone(pid)).toBe(true);
});

test('ten concurrent launches get ten distinct ports that reapAll stops', async () => {
  // Every game waits for a go-file before it binds, so while the ten launches are in flight no
  // port is taken yet and every probe of the range finds it free: only the allocator's own
  // reservation keeps two launches off one port. Each launch is started once the previous one
  // has spawned (its allocation is over), so the probes cannot collide with each other either.
  const range = await freeRange(12);
  const go = join(home, 'go');
  const { cwd } = project({
    command: `while [ ! -e "${go}" ]; do sleep 0.02; done; exec ${GAME}`,
    ports: range,
    readyTimeoutMs: 30000,
  });
  const launches: Array<Promise<LaunchedInstance>> = [];
  for (let i = 0; i < 10; i++) {
    const pending = launch(cwd);
    pending.catch(() => undefined); // awaited below; a failure must not be unhandled meanwhile
    launches.push(pending);
    await waitFor(`launch ${i + 1} spawned`, () => startingLaunches().length === i + 1, 20000);
  }
  for (const s of startingLaunches()) groups.add(s.pid);
  writeFileSync(go, '');
  const all = await Promise.all(launches);
  const ports = all.map((i) => i.port);
  expect(new Set(ports).size).toBe(10);
  for (const p of ports) expect(range).toContain(p);
  const health = await Promise.all(ports.map(healthOk));
  expect(health.every(Boolean)).toBe(true);

  const reaped = await launcher.reapAll();
  expect(reaped.map((r) => r.port).sort()).toEqual([...ports].sort());
  for (const i of all) expect(await waitGone(i.pid, 3000)).toBe(true);
  expect(launcher.list()).toEqual([]);
});

/** Launches spawned but not yet answering /health, as launched.json records them. */
function startingLaunches(): LaunchedInstance[] {
  return readLaunchedFile(homePaths(home).launchedJson, homePaths(home).logsDir).instances.filter((i) => i.starting);
}

test('after a clean close, what the game left behind in its process group is reaped too', async () => {
  const [port] = await freeRange(1);
  // a wrapper that leaves a helper behind, then becomes the game
  const { cwd } = project({
    command: `sleep 600 & echo "helper pid $!"; exec ${GAME}`,
    ports: [port],
    readyTimeoutMs: 20000,
  });
  const inst = await launch(cwd);
  const helper = await pidFromLog(inst.logFile, /helper pid (\d+)/);
  expect(alive(helper)).toBe(true);
  const stopped = await launcher.stop(inst.port);
  expect(stopped).toEqual({ port: inst.port, stopped: true, how: 'closed cleanly' });
  expect(alive(inst.pid)).toBe(false);
  expect(await waitGone(helper, 3000)).toBe(true);
  expect(await groupGone(inst.pid)).toBe(true);
});

test('a full port range falls back to an OS-assigned port', async () => {
  const range = await freeRange(2);
  const blockers = await Promise.all(
    range.map(
      (port) =>
        new Promise<net.Server>((resolve, reject) => {
          const s = net.createServer((sock) => sock.destroy());
          s.once('error', reject);
          s.listen({ port, host: '127.0.0.1' }, () => resolve(s));
        }),
    ),
  );
  cleanups.push(() =>
    Promise.all(blockers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => undefined),
  );
  const { cwd } = project({ command: GAME, ports: range, readyTimeoutMs: 20000 });
  const inst = await launch(cwd);
  expect(range).not.toContain(inst.port);
  expect(await healthOk(inst.port)).toBe(true);
  expect((await launcher.stop(inst.port)).how).toBe('closed cleanly');
});

test('a game that ignores close and SIGTERM, started through a shell wrapper, is killed with its whole tree', async () => {
  const [port] = await freeRange(1);
  const { cwd } = project({
    command: `sh -c 'node "${EXAMPLE_GAME}" --port {port} --ignore-close --child & wait'`,
    ports: [port],
    readyTimeoutMs: 20000,
  });
  const inst = await launch(cwd);
  const gamePid = await pidFromLog(inst.logFile, /\(pid (\d+)\)/);
  const grandchild = await pidFromLog(inst.logFile, /child pid (\d+)/);
  expect(alive(gamePid) && alive(grandchild)).toBe(true);

  const stopped = await launcher.stop(inst.port, { graceMs: 500 });
  expect(stopped).toEqual({ port: inst.port, stopped: true, how: 'killed' });
  expect(await waitGone(gamePid, 3000)).toBe(true);
  expect(await waitGone(grandchild, 3000)).toBe(true);
  expect(alive(inst.pid)).toBe(false);
  expect(await groupGone(inst.pid)).toBe(true);
  expect(launcher.log(inst.port).lines.join('\n')).toContain('ignored (--ignore-close)');
});

test('a game that refuses close but obeys SIGTERM is terminated', async () => {
  const [port] = await freeRange(1);
  // A tiny contract game written here: /health ok, every command refused.
  const script = join(home, 'stubborn.mjs');
  writeFileSync(
    script,
    `import http from 'node:http';
const port = Number(process.argv[2]);
http.createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  if (req.url.startsWith('/health')) return res.end(JSON.stringify({ ok: true, frame: 1 }));
  if (req.url.startsWith('/command')) return res.end(JSON.stringify({ accepted: false, error: 'not now' }));
  res.statusCode = 404; res.end('{}');
}).listen(port, '127.0.0.1', () => console.log('stubborn up on ' + port));
`,
  );
  const { cwd } = project({ command: `node "${script}" {port}`, ports: [port], readyTimeoutMs: 20000 });
  const inst = await launch(cwd);
  expect(inst.name).toBe('Crate Stack (declared)'); // no manifest: the declaration names it
  expect(inst.version).toBe('');
  // two stop calls at once share one escalation
  const [stopped, again] = await Promise.all([
    launcher.stop(inst.port, { graceMs: 300 }),
    launcher.stop(inst.port, { graceMs: 300 }),
  ]);
  expect(stopped).toEqual({ port: inst.port, stopped: true, how: 'terminated' });
  expect(again).toEqual(stopped);
  expect(await groupGone(inst.pid)).toBe(true);
});

test('stop on a port this launcher did not launch refuses and leaves the game running', async () => {
  const port = await freePort();
  const child = await startExampleGame(reaper, port);
  const err = await rejection(launcher.stop(port));
  expect(err.kind).toBe('NotLaunchedHere');
  expect(err.message).toContain('raw_command');
  expect(alive(child.pid!)).toBe(true);
  expect(await healthOk(port)).toBe(true);
  expect(() => launcher.log(port)).toThrow(/did not launch/);
});

test('missing and malformed gamebridge.json: the error says where it looked and what is wrong', () => {
  const cwd = join(home, 'nowhere', 'deeper');
  mkdirSync(cwd, { recursive: true });
  // (temp dirs live under the OS temp dir, where no project declares a game)
  let err: BridgeError | undefined;
  try {
    findDeclaration({ cwd });
  } catch (e) {
    err = e as BridgeError;
  }
  expect(err?.kind).toBe('BridgeUsageError');
  for (const d of [cwd, join(home, 'nowhere'), home, '/']) expect(err?.message).toContain(d);
  expect(err?.message).toMatch(/`(game-bridge-mcp|node \S+\/dist\/proxy\/main\.js) init` writes a template/);

  const explicit = join(home, 'missing', 'gamebridge.json');
  expect(() => findDeclaration({ cwd, configPath: explicit })).toThrow(explicit);

  const file = join(home, 'nowhere', 'gamebridge.json');
  writeFileSync(file, '{"name": "x", "launch": {');
  expect(() => findDeclaration({ cwd })).toThrow(
    new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not valid JSON`),
  );

  writeFileSync(file, JSON.stringify({ name: 'x', launch: { cwd: '.' } }));
  expect(() => findDeclaration({ cwd })).toThrow(/"launch\.command" is missing/);
  try {
    findDeclaration({ cwd });
  } catch (e) {
    expect((e as BridgeError).message).toContain(file);
  }

  writeFileSync(file, JSON.stringify({ launch: { command: 'x --port {port}', portRange: '9000-80' } }));
  expect(() => findDeclaration({ cwd })).toThrow(/"launch\.portRange"/);

  writeFileSync(file, JSON.stringify({ launch: { command: 'x', cwd: './no-such-dir' } }));
  expect(() => findDeclaration({ cwd })).toThrow(/"launch\.cwd"/);

  writeFileSync(
    file,
    JSON.stringify({
      launch: { command: 'x {port}', portRange: '7820-7821', readyTimeoutMs: 5000 },
      composites: './c.mjs',
    }),
  );
  const decl = findDeclaration({ cwd });
  expect(decl).toMatchObject({
    file,
    dir: join(home, 'nowhere'),
    cwd: join(home, 'nowhere'),
    portRange: [7820, 7821],
    readyTimeoutMs: 5000,
    composites: join(home, 'nowhere', 'c.mjs'),
  });
});

test('a new launcher on the same home re-adopts live instances and reports dead ones gone', async () => {
  const range = await freeRange(4);
  const { cwd } = project({ command: GAME, ports: range, readyTimeoutMs: 20000 });
  const a = await launch(cwd, { owner: 's1' });
  const b = await launch(cwd, { owner: 's2' });

  // the old daemon dies abruptly: it stops watching and writing, its games keep running
  launcher.dispose();
  process.kill(-b.pid, 'SIGKILL');
  expect(await waitGone(b.pid, 3000)).toBe(true);

  const next = new Launcher({ home });
  cleanups.push(() => next.dispose());
  const { adopted, gone } = await next.readopt();
  expect(adopted.map((i) => [i.port, i.pid, i.owner])).toEqual([[a.port, a.pid, 's1']]);
  expect(gone.map((i) => i.port)).toEqual([b.port]);
  expect(next.isLaunched(a.port)).toBe(true);
  expect(next.isLaunched(b.port)).toBe(false);
  const saved = JSON.parse(readFileSync(homePaths(home).launchedJson, 'utf8'));
  expect(saved.instances.map((i: LaunchedInstance) => i.port)).toEqual([a.port]);
  expect(next.log(a.port).lines.join('\n')).toContain(`listening on 127.0.0.1:${a.port}`);

  // a new launch from the successor never takes the adopted port
  const c = await next.launch({ cwd, env: clientEnv() });
  track(c);
  expect(c.port).not.toBe(a.port);

  expect((await next.stop(a.port)).how).toBe('closed cleanly');
  expect(alive(a.pid)).toBe(false);
  await next.stop(c.port);
});

test('a launched game that exits by itself leaves the table with an exit event and an exit record', async () => {
  const [port] = await freeRange(1);
  const { cwd } = project({ command: GAME, ports: [port], readyTimeoutMs: 20000 });
  const inst = await launch(cwd);
  const exited = new Promise<[LaunchedInstance, ExitRecord]>((r) => launcher.once('exit', (i, rec) => r([i, rec])));
  const c = new GameClient(inst.port);
  await c.command('close');
  c.close();
  const [which, rec] = await exited;
  expect(which.port).toBe(inst.port);
  expect(rec).toMatchObject({ port: inst.port, pid: inst.pid, exitCode: 0, signal: null, statusFrom: 'game' });
  expect(launcher.isLaunched(inst.port)).toBe(false);
  expect(launcher.exitedList().map((r) => r.port)).toEqual([inst.port]);
  expect(launcher.log(inst.port).lines.join('\n')).toContain('close requested (command)');
});

test('cancelling a launch through its AbortSignal kills what it started', async () => {
  const [port] = await freeRange(1);
  const { cwd } = project({ command: `${GAME} --slow-start 60000`, ports: [port], readyTimeoutMs: 60000 });
  const ac = new AbortController();
  let progressed = 0;
  const pending = rejection(launch(cwd, { signal: ac.signal, onProgress: () => progressed++ }));
  await waitFor('a progress report', () => progressed > 0, 10000);
  // Cancel only once the game is running (on a loaded machine node may take over a second to start).
  const logsDir = homePaths(home).logsDir;
  const logFile = await waitFor('the launch log', () => readdirSync(logsDir).map((f) => join(logsDir, f))[0], 10000);
  const gamePid = await pidFromLog(logFile, /\(pid (\d+)\)/);
  ac.abort();
  const err = await pending;
  expect(err.kind).toBe('LaunchFailed');
  expect(err.message).toMatch(/^Launch cancelled/);
  expect((err.data as LaunchFacts).logFile).toBe(logFile);
  groups.add((err.data as LaunchFacts).pid as number);
  expect(await waitGone(gamePid, 3000)).toBe(true);
  expect(await groupGone((err.data as LaunchFacts).pid as number)).toBe(true);
  expect(launcher.isLaunched(port)).toBe(false);
});
