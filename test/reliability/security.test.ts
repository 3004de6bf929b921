/**
 * Security (docs/RELIABILITY.md section 4): token required and compared in constant time, a fresh
 * token per daemon, browser Origin and foreign Host refused, files 0600 and dirs 0700, the
 * launch command only from gamebridge.json, nothing listening beyond 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { call, connect, type McpHandle } from '../helpers/mcp.js';
import { freeRange } from '../helpers/ports.js';
import { alive, CLI, removeDir, tempHome, waitGone } from '../helpers/procs.js';
import { daemonFacts, liveDaemon, listeningAddresses, reapAndReport } from '../helpers/fault.js';
import { writeProject } from '../helpers/project.js';
import { upgradeStatus } from '../helpers/upgrade.js';

const run = promisify(execFile);
let home: string;
let env: Record<string, string>;
const handles: McpHandle[] = [];
const started = new Set<number>();

beforeAll(() => {
  home = tempHome('gb-sec-');
  env = { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '600000' };
});

afterAll(async () => {
  for (const h of handles) await h.close();
  if (daemonFacts(home))
    await run(process.execPath, [CLI, 'stop'], { env: { ...process.env, ...env } }).catch(() => undefined);
  const left = await reapAndReport(home, started);
  removeDir(home);
  expect(left).toEqual([]);
});

function status(port: number, headers: Record<string, string>, path = '/status'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the daemon of a home', () => {
  let h: McpHandle;
  let d: Awaited<ReturnType<typeof liveDaemon>>;
  let host = '';
  let auth = '';
  let launched: Awaited<ReturnType<typeof call>>;
  beforeAll(async () => {
    const project = writeProject(join(home, 'project'), { ports: await freeRange(2) }).root;
    h = await connect({ env, cwd: project });
    handles.push(h);
    if (h.pid) started.add(h.pid);
    await h.client.listTools();
    d = await liveDaemon(home);
    started.add(d.pid);
    host = `127.0.0.1:${d.port}`;
    auth = `Bearer ${d.token}`;
  }, 60000);

  test('refuses every wrong token with a clean 401, on the plain-HTTP routes and the WebSocket upgrade', async () => {
    // Constant-time comparison itself cannot be seen over HTTP; what can: every near miss is a
    // clean 401, including a token of the right length in characters but not in bytes (a
    // comparison of unequal buffers throws, and would take the request or the daemon down).
    const other = (c: string) => (c === '0' ? '1' : '0');
    const t = d.token;
    const wrong = [
      undefined,
      'Bearer ',
      `bearer ${t}`,
      `Bearer ${t}x`,
      `Bearer ${t.slice(0, -1)}`,
      `Bearer ${other(t[0])}${t.slice(1)}`,
      `Bearer ${t.slice(0, 32)}${other(t[32])}${t.slice(33)}`,
      `Bearer ${t.slice(0, -1)}${other(t[63])}`,
      `Bearer ${t.slice(0, -1)}é`,
      `Bearer ${'é'.repeat(32)}`,
    ];
    for (const authorization of wrong) {
      const headers: Record<string, string> = { Host: host };
      if (authorization !== undefined) headers.Authorization = authorization;
      expect(`${authorization} → ${await status(d.port, headers)}`).toBe(`${authorization} → 401`);
      expect(`${authorization} → ${await upgradeStatus(d.port, headers)}`).toBe(`${authorization} → 401`);
    }
    expect(alive(d.pid)).toBe(true);
  });

  test('refuses a browser Origin or a foreign Host (403) even with the token', async () => {
    expect(await status(d.port, { Host: host, Authorization: auth, Origin: 'http://localhost:3000' })).toBe(403);
    expect(await status(d.port, { Host: `attacker.example:${d.port}`, Authorization: auth })).toBe(403);
    expect(await status(d.port, { Host: '127.0.0.1', Authorization: auth })).toBe(403);
    expect(await status(d.port, { Host: host, Authorization: auth }, '/stop')).toBe(426); // GET /stop is not a stop
    expect(await status(d.port, { Host: host, Authorization: auth })).toBe(200);
    expect(alive(d.pid)).toBe(true);
  });

  test('keeps its files 0600 and its folders 0700', async () => {
    launched = await call(h, 'launch_instance', {}, 60000);
    expect(launched.isError ? launched.text : 'ok').toBe('ok');
    started.add(launched.json.pid);
    for (const dir of [home, join(home, 'daemon'), join(home, 'logs')])
      expect(`${dir} ${(statSync(dir).mode & 0o777).toString(8)}`).toBe(`${dir} 700`);
    for (const file of [
      join(home, 'daemon', 'daemon.json'),
      join(home, 'daemon', 'token'),
      join(home, 'daemon', 'launched.json'),
      launched.json.logFile as string,
    ]) {
      expect(`${file} ${(statSync(file).mode & 0o777).toString(8)}`).toBe(`${file} 600`);
    }
  });

  test('has nothing of the bridge listen beyond 127.0.0.1', () => {
    // nothing listens beyond 127.0.0.1: the daemon, the proxy and the launched game
    const addrs = listeningAddresses([d.pid, h.pid!, launched.json.pid, ...childPids(launched.json.pid)]);
    expect(addrs.length).toBeGreaterThanOrEqual(2);
    for (const a of addrs) expect(a).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  test('keeps its token across a restart', async () => {
    // the same token after a restart: it lives in the home, not in one daemon
    await run(process.execPath, [CLI, 'stop'], { env: { ...process.env, ...env } });
    await waitGone(d.pid, 15000);
    await h.client.listTools();
    const d2 = await liveDaemon(home, d.pid);
    started.add(d2.pid);
    expect(d2.token).toBe(d.token); // one token per home, kept across daemons so a stored HTTP header keeps working (docs/DECISIONS.md)
    expect(d2.token).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(join(home, 'daemon', 'token'), 'utf8').trim()).toBe(d2.token);
  }, 60000);
});

test('launch_instance takes a gamebridge.json path and names from it, never a command, port or env from tool arguments', async () => {
  const h = handles[0];
  const { tools } = await h.client.listTools();
  const launch = tools.find((t) => t.name === 'launch_instance')!;
  // profile names a profile the file declares; restart names a port this bridge launched a game on;
  // seed is a number a page's random functions start from; paused is a yes/no the kit reads;
  // to is only "here" and stopAtDivergence a yes/no (restart to the moment the session was at)
  expect(Object.keys((launch.inputSchema as { properties?: object }).properties ?? {})).toEqual([
    'config',
    'profile',
    'count',
    'restart',
    'seed',
    'force',
    'to',
    'stopAtDivergence',
    'paused',
  ]);
  const marker = join(home, 'pwned');
  const res = await call(h, 'launch_instance', {
    command: `touch ${marker}`,
    config: `$(touch ${marker})`,
    port: 1,
    env: { X: '1' },
  });
  expect(res.isError).toBe(true);
  const byProfile = await call(h, 'launch_instance', { profile: `$(touch ${marker})` });
  expect(byProfile.isError).toBe(true);
  const byRestart = await call(h, 'launch_instance', { restart: 1 });
  expect(byRestart.text).toMatch(/^BridgeUsageError: Nothing to restart on port 1/);
  expect(() => statSync(marker)).toThrow();
});

function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
