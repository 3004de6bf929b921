/**
 * GAME_BRIDGE_HOME on a machine shared with other users: a home or daemon directory someone
 * else made (or left open to everyone) is refused with the fix, and launched.json is read
 * without believing it: a log path outside logs/ is never returned by instance_log, a pid that
 * is not the recorded process is never killed, and an unreadable file is kept aside, not
 * overwritten. Real proxy + daemon, real SDK client; the foreign owner is `nobody`.
 */
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, connect, type McpHandle } from './helpers/mcp.js';
import { freePort } from './helpers/ports.js';
import { INIT, rawProxy } from './helpers/raw-proxy.js';
import { alive, Reaper, removeDir, startExampleGame, stopDaemon, tempHome, waitFor } from './helpers/procs.js';
import { writeProject } from './helpers/project.js';

const NOBODY = 65534;
const reaper = new Reaper();
const handles: McpHandle[] = [];
let home = '';

beforeEach(() => {
  home = tempHome('gb-hometrust-');
});

afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
  stopDaemon(home);
  await reaper.reap();
  removeDir(home);
});

async function open(cwd = home): Promise<McpHandle> {
  const h = await connect({
    env: { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '20000' },
    cwd,
    args: ['--no-scan'],
  });
  handles.push(h);
  reaper.track(h.pid);
  return h;
}

/** launched.json as a daemon writes it, with `instances`, planted before any daemon runs. */
function plantLaunched(instances: unknown[] | string): void {
  mkdirSync(join(home, 'daemon'), { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
  const text =
    typeof instances === 'string'
      ? instances
      : JSON.stringify({ version: 1, savedAt: new Date().toISOString(), savedBy: 1, instances });
  writeFileSync(join(home, 'daemon', 'launched.json'), text, { mode: 0o600 });
}

test('a home owned by another user or open to everyone is refused with the fix before anything is written in it', async () => {
  chownSync(home, NOBODY, NOBODY);
  chmodSync(home, 0o777);
  const p = rawProxy(reaper, { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '20000' });
  p.send(INIT);
  await waitFor('the refusal on stderr', () => /owned by uid 65534, not by you/.test(p.stderr()), 20000);
  expect(p.stderr()).toMatch(/GAME_BRIDGE_HOME at a directory of your own|rm -rf/);
  expect(readdirSync(home)).toEqual([]); // no daemon.json, no token for its owner to read
  p.child.kill('SIGKILL');

  chownSync(home, 0, 0);
  chmodSync(home, 0o700);
  mkdirSync(join(home, 'daemon'));
  chmodSync(join(home, 'daemon'), 0o777);
  const q = rawProxy(reaper, { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '20000' });
  q.send(INIT);
  await waitFor('the refusal on stderr', () => /daemon is writable by every user \(mode 777\)/.test(q.stderr()), 20000);
  expect(q.stderr()).toContain(`chmod 700 '${join(home, 'daemon')}'`);
  expect(readdirSync(join(home, 'daemon'))).toEqual([]);
  q.child.kill('SIGKILL');
}, 60000);

test('a refused home: the client is answered at once with the refusal and its fix', async () => {
  chownSync(home, NOBODY, NOBODY);
  chmodSync(home, 0o777);
  const env = { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '20000' };
  // The official SDK client: its connect() is the initialize request, answered with the refusal.
  const t0 = Date.now();
  const refused = await connect({ env, cwd: home, args: ['--no-scan'] }).then(
    () => 'connected',
    (e: Error) => e.message,
  );
  expect(Date.now() - t0).toBeLessThan(15000); // not the 30 s reconnect deadline
  expect(refused).toMatch(/BridgeUsageError: The bridge's home is refused: .* is owned by uid 65534, not by you/);
  expect(refused).toContain(`rm -rf '${home}'`);
}, 60000);

test('a refused home: every later request is refused on a stdout of only JSON-RPC until the home is fixed', async () => {
  chownSync(home, NOBODY, NOBODY);
  chmodSync(home, 0o777);
  const env = { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '20000' };
  // The client may retry: each request gets the refusal, and nothing but JSON-RPC is on stdout.
  const p = rawProxy(reaper, env);
  p.send(INIT);
  p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  p.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_instances', arguments: {} } });
  expect((await p.answer('init', 15000)).error.message).toMatch(/^BridgeUsageError: The bridge's home is refused/);
  expect((await p.answer(2, 15000)).error.message).toMatch(/^BridgeUsageError: .*not by you/);
  const toolAnswer = (await p.answer(3, 15000)).result;
  expect(toolAnswer.isError).toBe(true);
  expect(toolAnswer.content[0].text).toMatch(/^BridgeUsageError: The bridge's home is refused/);
  for (const line of p.lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  expect(readdirSync(home)).toEqual([]);

  // Fixed while the proxy runs: the next request is served.
  chownSync(home, 0, 0);
  chmodSync(home, 0o700);
  await waitFor(
    'a request served once the home is fixed',
    async () => {
      const id = `again-${Date.now()}`;
      p.send({ jsonrpc: '2.0', id, method: 'tools/list' });
      return (await p.answer(id, 15000)).result?.tools?.length > 0;
    },
    30000,
    500,
  );
  p.child.kill('SIGKILL');
}, 90000);

test('launched.json naming a log outside logs/ is not believed: instance_log never returns that file', async () => {
  const port = await freePort();
  const game = await startExampleGame(reaper, port, [], { GAME_BRIDGE_HOME: home });
  const secret = join(home, 'secret.txt');
  writeFileSync(secret, 'TOP-SECRET-LINE\n');
  plantLaunched([
    {
      port,
      pid: game.pid,
      name: 'x',
      version: '1',
      cwd: home,
      command: 'x',
      logFile: secret,
      startedAt: new Date().toISOString(),
      readyInMs: 1,
      declaration: 'x',
    },
  ]);
  const h = await open();
  const r = await call(h, 'instance_log', { port });
  expect(r.text).not.toContain('TOP-SECRET-LINE');
  expect(readFileSync(join(home, 'daemon', 'daemon.log'), 'utf8')).toMatch(
    /launched\.json: ignored entry .*log file outside/,
  );
}, 60000);

test('a "starting" entry whose pid is not the recorded process is never killed', async () => {
  // Someone else's process (here: ours, standing in for it), under a pid launched.json names.
  const stranger = spawn('/bin/sleep', ['120'], { stdio: 'ignore' });
  reaper.track(stranger.pid);
  const port = await freePort();
  plantLaunched([
    {
      port,
      pid: stranger.pid,
      pgid: stranger.pid,
      pidStart: 1,
      name: 'x',
      version: '',
      cwd: home,
      command: 'x',
      logFile: join(home, 'logs', 'x.log'),
      startedAt: new Date().toISOString(),
      readyInMs: 0,
      declaration: 'x',
      starting: true,
    },
  ]);
  await open();
  await waitFor('the daemon to re-adopt', () => /re-adopted 0 launched game\(s\)/.test(readLog()), 20000);
  expect(alive(stranger.pid!)).toBe(true);
}, 60000);

test('an unreadable launched.json is kept aside and reported, not silently overwritten', async () => {
  plantLaunched('{"version":1,"instances":[{"port":20001,"pid":4242, <torn');
  const project = writeProject(join(home, 'project'), { ports: [await freePort()] }).root;
  const h = await open(project);
  const launched = await call(h, 'launch_instance', {}, 60000);
  expect(launched.isError).toBeFalsy();
  const aside = readdirSync(join(home, 'daemon')).filter((f) => f.startsWith('launched.json.bad-'));
  expect(aside).toHaveLength(1);
  expect(readFileSync(join(home, 'daemon', aside[0]), 'utf8')).toContain('<torn');
  expect(readLog()).toContain(`launched.json could not be read; it was kept as ${join(home, 'daemon', aside[0])}`);
  expect(existsSync(join(home, 'daemon', 'launched.json'))).toBe(true);
}, 90000);

function readLog(): string {
  try {
    return readFileSync(join(home, 'daemon', 'daemon.log'), 'utf8');
  } catch {
    return '';
  }
}
