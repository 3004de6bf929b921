/**
 * The proxy ⇄ daemon pair end to end (docs/ARCHITECTURE.md): real proxies (the CLI, driven by the SDK Client
 * or by raw stdio), the real daemon, kill -9 for crashes.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { daemonFacts, type DaemonFacts } from './helpers/fault.js';
import { call, connect, type McpHandle } from './helpers/mcp.js';
import { alive, CLI, Reaper, removeDir, tempHome, waitFor, waitGone } from './helpers/procs.js';
import { upgradeStatus } from './helpers/upgrade.js';

const run = promisify(execFile);
const VERSION = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')).version as string;

const reaper = new Reaper();
const homes: string[] = [];
const handles: McpHandle[] = [];

function newHome(): { home: string; env: Record<string, string> } {
  const home = tempHome('gb-pair-');
  homes.push(home);
  return { home, env: { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '60000' } };
}

/** The daemon of `home`, once daemon.json names a live pid (tracked for reaping). */
async function daemonOf(home: string, notPid?: number): Promise<DaemonFacts> {
  const info = await waitFor(
    'daemon.json',
    () => {
      const i = daemonFacts(home);
      return i && i.pid !== notPid && alive(i.pid) ? i : undefined;
    },
    20000,
  );
  reaper.track(info.pid);
  return info;
}

/** Every live daemon process (`main.js daemon` or the bundle) whose GAME_BRIDGE_HOME is `home` (Linux /proc). */
function daemonProcesses(home: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const isDaemon =
        (args.includes(CLI) && args.includes('daemon')) || args.some((a) => a.endsWith('/dist/daemon/life/boot.js'));
      if (!isDaemon) continue;
      const env = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      // a primary's standby (daemon/life/standby.ts) waits beside it holding nothing: not a second daemon
      const standby = env.some((v) => v.startsWith('GAME_BRIDGE_STANDBY_FOR='));
      if (env.includes(`GAME_BRIDGE_HOME=${home}`) && !standby) out.push(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

async function open(env: Record<string, string>, args: string[] = []): Promise<McpHandle> {
  const h = await connect({ env, args });
  handles.push(h);
  reaper.track(h.pid);
  return h;
}

afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
  for (const home of homes) {
    const info = daemonFacts(home);
    if (info) reaper.track(info.pid);
    for (const pid of daemonProcesses(home)) reaper.track(pid);
  }
  await reaper.reap();
  for (const home of homes.splice(0)) removeDir(home);
});

test('five proxies racing with no daemon all work on exactly one daemon', async () => {
  const { home, env } = newHome();
  const clients = await Promise.all(Array.from({ length: 5 }, () => open(env)));
  const lists = await Promise.all(clients.map((c) => c.client.listTools()));
  for (const l of lists) expect(l.tools.map((t) => t.name)).toContain('call_tool');
  const info = await daemonOf(home);
  // the losers of the lock race exit quietly; one daemon process remains for this home
  await waitFor('one daemon process', () => daemonProcesses(home).length === 1, 15000);
  expect(daemonProcesses(home)).toEqual([info.pid]);
  const status = await run(process.execPath, [CLI, 'status', '--json'], { env: { ...process.env, ...env } });
  const facts = JSON.parse(status.stdout);
  expect(facts.pid).toBe(info.pid);
  expect(facts.version).toBe(VERSION);
  expect(facts.sessions).toHaveLength(5);
});

test('home is 0700 and daemon.json is 0600, with a fresh 32-byte token', async () => {
  const { home, env } = newHome();
  await open(env);
  const info = await daemonOf(home);
  expect(statSync(home).mode & 0o777).toBe(0o700);
  expect(statSync(join(home, 'daemon')).mode & 0o777).toBe(0o700);
  expect(statSync(join(home, 'daemon', 'daemon.json')).mode & 0o777).toBe(0o600);
  expect(info.token).toMatch(/^[0-9a-f]{64}$/);
  expect(info.version).toBe(VERSION);
  // the daemon's log lines carry its pid
  expect(readFileSync(join(home, 'daemon', 'daemon.log'), 'utf8')).toContain(`[${info.pid}]`);
});

test('the daemon refuses a missing or wrong token (401), a browser Origin and a foreign Host (403)', async () => {
  const { home, env } = newHome();
  await open(env);
  const { port, token } = await daemonOf(home);
  const host = `127.0.0.1:${port}`;
  const auth = `Bearer ${token}`;
  expect(await upgradeStatus(port, { Host: host })).toBe(401);
  expect(await upgradeStatus(port, { Host: host, Authorization: `Bearer ${'0'.repeat(64)}` })).toBe(401);
  expect(await upgradeStatus(port, { Host: host, Authorization: 'Bearer short' })).toBe(401);
  expect(await upgradeStatus(port, { Host: host, Authorization: auth, Origin: 'https://evil.example' })).toBe(403);
  expect(await upgradeStatus(port, { Host: host, Authorization: auth, Origin: 'null' })).toBe(403);
  expect(await upgradeStatus(port, { Host: `evil.example:${port}`, Authorization: auth })).toBe(403);
  expect(await upgradeStatus(port, { Host: `localhost:${port}`, Authorization: auth })).toBe(101);
  expect(await upgradeStatus(port, { Host: host, Authorization: auth })).toBe(101);
});

test('a line that is not JSON gets -32700 without ending the session', async () => {
  const { home, env } = newHome();
  const proxy = spawn(process.execPath, [CLI], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  reaper.track(proxy.pid);
  let out = '';
  proxy.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const send = (o: unknown) => proxy.stdin.write((typeof o === 'string' ? o : JSON.stringify(o)) + '\n');
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  send('this is not json');
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  await waitFor('tools/list answer', () => out.includes('"id":2'), 20000);
  const lines = out.trim().split('\n');
  const msgs = lines.map((l) => JSON.parse(l));
  expect(msgs.find((m) => m.id === null)?.error?.code).toBe(-32700);
  expect(msgs.find((m) => m.id === 1)?.result?.serverInfo?.name).toBe('game-bridge-mcp');
  expect(msgs.find((m) => m.id === 2)?.result?.tools?.length).toBe(7);
  for (const m of msgs) expect(m.jsonrpc).toBe('2.0');
  await daemonOf(home);
  proxy.stdin.end();
  await waitGone(proxy.pid!, 5000);
});

test('stdin closing ends the proxy promptly but not the daemon', async () => {
  const { home, env } = newHome();
  const proxy = spawn(process.execPath, [CLI], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  reaper.track(proxy.pid);
  let out = '';
  proxy.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proxy.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) + '\n');
  await waitFor('ping answer', () => out.includes('"id":1'), 20000);
  const info = await daemonOf(home);
  proxy.stdin.end();
  expect(await waitGone(proxy.pid!, 2000)).toBe(true); // the spec says within 1 s; 2 s leaves room for a loaded machine
  // the daemon outlives its proxy: it still answers, as the same process
  expect(
    JSON.parse((await run(process.execPath, [CLI, 'status', '--json'], { env: { ...process.env, ...env } })).stdout)
      .pid,
  ).toBe(info.pid);
  // a proxy whose stdin had already ended at start-up leaves at once too
  const early = spawn(process.execPath, [CLI], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  reaper.track(early.pid);
  expect(await waitGone(early.pid!, 5000)).toBe(true);
});

test('kill -9 of an idle daemon: the next request is answered by a new daemon', async () => {
  const { home, env } = newHome();
  const h = await open(env);
  await call(h, 'list_instances', { scan: false });
  const first = await daemonOf(home);
  process.kill(first.pid, 'SIGKILL');
  await waitGone(first.pid);
  const second = await daemonOf(home, first.pid); // the proxy noticed while idle, and started one
  const { tools } = await h.client.listTools();
  expect(tools).toHaveLength(7);
  expect(second.pid).not.toBe(first.pid);
  const r = await call(h, 'list_instances', {});
  expect(r.isError).toBe(false);
});

test('a request sent while the daemon is down is delivered once the new daemon is up', async () => {
  const { home, env } = newHome();
  const h = await open(env);
  await h.client.listTools();
  const first = await daemonOf(home);
  process.kill(first.pid, 'SIGKILL');
  // no wait: the request races the proxy noticing the crash (queued or unacked, both re-sent)
  const [tools, listed] = await Promise.all([h.client.listTools(), call(h, 'list_instances', {})]);
  expect(tools.tools).toHaveLength(7);
  expect(listed.isError).toBe(false);
  const second = await daemonOf(home, first.pid);
  expect(second.pid).not.toBe(first.pid);
  // the new daemon knows this session: initialize was replayed under the proxy's own id
  const facts = JSON.parse(
    (await run(process.execPath, [CLI, 'status', '--json'], { env: { ...process.env, ...env } })).stdout,
  );
  expect(facts.sessions).toHaveLength(1);
});

test('version mismatch: an older daemon hands over and a daemon of our version serves', async () => {
  const { home, env } = newHome();
  const old = spawn(process.execPath, [CLI, 'daemon'], {
    env: { ...process.env, ...env, GAME_BRIDGE_VERSION_OVERRIDE: '0.0.1-old' },
    stdio: 'ignore',
    detached: true,
  });
  reaper.track(old.pid);
  const oldInfo = await daemonOf(home);
  expect(oldInfo.version).toBe('0.0.1-old');
  const h = await open(env);
  const { tools } = await h.client.listTools();
  expect(tools).toHaveLength(7);
  expect(await waitGone(old.pid!, 10000)).toBe(true);
  const now = await daemonOf(home, oldInfo.pid);
  expect(now.version).toBe(VERSION);
});

test('`game-bridge-mcp stop` stops the daemon and removes daemon.json', async () => {
  const { home, env } = newHome();
  const h = await open(env);
  await h.client.listTools();
  const info = await daemonOf(home);
  const out = await run(process.execPath, [CLI, 'stop'], { env: { ...process.env, ...env } });
  expect(out.stdout).toContain('stopped');
  expect(alive(info.pid)).toBe(false);
  expect(existsSync(join(home, 'daemon', 'daemon.json'))).toBe(false);
  // the proxy starts a daemon again only when its client needs one
  const { tools } = await h.client.listTools();
  expect(tools).toHaveLength(7);
  await daemonOf(home, info.pid);
});

test('the daemon exits after idleExitMs with no sessions and no instances', async () => {
  const { home, env } = newHome();
  const h = await open({ ...env, GAME_BRIDGE_IDLE_EXIT_MS: '500' });
  await h.client.listTools();
  const info = await daemonOf(home);
  await h.close();
  expect(await waitGone(info.pid, 15000)).toBe(true);
  expect(existsSync(join(home, 'daemon', 'daemon.json'))).toBe(false);
});

test('while the daemon cannot come back the proxy answers: ping at once, a request with a clean error at the deadline', async () => {
  const { home, env } = newHome();
  const proxy = spawn(process.execPath, [CLI], {
    env: { ...process.env, ...env, GAME_BRIDGE_RECONNECT_DEADLINE_MS: '1500' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  reaper.track(proxy.pid);
  let out = '';
  proxy.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const send = (m: object) => proxy.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
  const answer = (id: number) =>
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((m) => m.id === id);
  send({
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await waitFor('initialize answered', () => answer(1));
  const first = await daemonOf(home);
  // No daemon can start again: its directory becomes a file (the proxy cannot even open daemon.log).
  // The file is planted while the daemon still lives: once it dies, the reconnecting proxy would
  // recreate the directory between a removal and a write.
  renameSync(join(home, 'daemon'), join(home, 'daemon.gone'));
  writeFileSync(join(home, 'daemon'), 'not a directory');
  try {
    process.kill(first.pid, 'SIGKILL');
  } catch {
    // it may already have left on its own: its lock went with the directory
  }
  expect(await waitGone(first.pid)).toBe(true);
  removeDir(join(home, 'daemon.gone'));
  send({ id: 2, method: 'ping' });
  await waitFor('ping answered locally', () => answer(2), 5000);
  expect(answer(2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  send({ id: 3, method: 'tools/list' });
  const started = Date.now();
  await waitFor('the answer', () => answer(3), 10000);
  const message: string = answer(3).error.message;
  if (message.startsWith('BridgeUsageError')) {
    // the proxy sees why no daemon can start (its home's daemon/ is not a directory) and says so at once
    expect(message).toMatch(/^BridgeUsageError: The bridge's home is refused: /);
  } else {
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(message).toMatch(/^CallInterrupted: .*did not come back within 1500ms; see .*daemon\.log/);
  }
  proxy.stdin.end();
  expect(await waitGone(proxy.pid!, 3000)).toBe(true);
});
