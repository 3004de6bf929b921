import { join } from 'node:path';
/**
 * MCP 2026-07-28 (server/discover, per-request _meta) beside 2025-11-25 (initialize), through the
 * real proxy, the in-process engine and HTTP, with the SDK v2 client in each mode.
 */
import { writeProject } from './helpers/project.js';
import type { Client } from '@modelcontextprotocol/client';
import { CLI, Reaper, removeDir, startExampleGame, tempHome, waitFor } from './helpers/procs.js';
import { freePort, freeRange } from './helpers/ports.js';
import { createServer, type Server } from 'node:net';
import { endHttpDaemon, startHttpDaemon, type HttpDaemon } from './helpers/http-daemon.js';
import { httpClientV2, stdioClient, toolJson, type EraMode } from './helpers/v2-client.js';
import { daemonFacts, gameState, liveDaemon, reapAndReport, sleep, unreadBytesAt } from './helpers/fault.js';
import { discoverResult, INSTRUCTIONS } from '../shared/server-identity.js';
import { BRIDGE_TOOL_NAMES } from '../daemon/bridge/index.js';

const reaper = new Reaper();
const clients: Client[] = [];
let home = '';
let d: HttpDaemon | undefined;

beforeEach(() => {
  home = tempHome('gb-eras-');
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  const info = daemonFacts(home);
  if (info) reaper.track(info.pid);
  await endHttpDaemon(reaper, d);
  d = undefined;
  // whatever else still runs for this home: a daemon a proxy started may still be booting (no
  // daemon.json yet), and such a daemon outlived the suite
  await reapAndReport(home);
  removeDir(home);
});

const env = () => ({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '60000' });

/** The era the client landed on, and that the MCP tools and one call work in it. */
async function exercise(client: Client): Promise<string | undefined> {
  clients.push(client);
  expect((await client.listTools()).tools).toHaveLength(7);
  expect(await toolJson(client, 'list_instances', { scan: false })).toHaveProperty('live');
  return client.getProtocolEra();
}

const expected: Record<EraMode, string> = { legacy: 'legacy', auto: 'modern', modern: 'modern' };

test.each(['legacy', 'auto', 'modern'] as EraMode[])('through the proxy, a v2 client in %s mode', async (mode) => {
  const { client, transport } = await stdioClient(mode, env());
  reaper.track(transport.pid ?? undefined);
  expect(await exercise(client)).toBe(expected[mode]);
});

test.each(['legacy', 'modern'] as EraMode[])('with --no-daemon, a v2 client in %s mode', async (mode) => {
  const { client, transport } = await stdioClient(mode, env(), ['--no-daemon']);
  reaper.track(transport.pid ?? undefined);
  expect(await exercise(client)).toBe(expected[mode]);
});

test('over HTTP, v2 clients in all three modes share the daemon', async () => {
  d = await startHttpDaemon(reaper, { home });
  for (const mode of ['legacy', 'auto', 'modern'] as EraMode[]) {
    expect(await exercise(await httpClientV2(mode, d.url, d.token))).toBe(expected[mode]);
  }
});

test("the daemon's server/discover is the one the proxy builds itself while the daemon is down", async () => {
  d = await startHttpDaemon(reaper, { home });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const res = await fetch(d.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${d.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'server/discover',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }),
  });
  expect(res.status).toBe(200);
  const answer = (await res.json()) as { result: unknown };
  expect(answer.result).toEqual(discoverResult());
});

/** The bare proxy as a line-level client: write JSON-RPC lines, await answers by id. */
function rawProxy(extraEnv: Record<string, string>) {
  const child = reaper.spawn(process.execPath, [CLI], {
    env: { ...process.env, ...extraEnv },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const answers = new Map<unknown, (m: any) => void>();
  let buf = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buf += chunk.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const m = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      answers.get(m.id)?.(m);
    }
  });
  return {
    ask(id: number, method: string, params: Record<string, unknown> = {}): Promise<any> {
      const answered = new Promise((resolve) => answers.set(id, resolve));
      child.stdin!.write(
        JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: MODERN_META } }) + '\n',
      );
      return answered;
    },
  };
}

/** Bind `port` as soon as it is free (within 2 s). */
async function holdPort(port: number): Promise<Server> {
  for (const end = Date.now() + 2000; ;) {
    const server = createServer();
    try {
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
      return server;
    } catch (e) {
      if (Date.now() > end) throw e;
      await sleep(2);
    }
  }
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

test('while a killed daemon cannot come back the proxy answers server/discover at once, holding a 2026 request for the next', async () => {
  const daemonPort = await freePort();
  const proxy = rawProxy({ ...env(), GAME_BRIDGE_DAEMON_PORT: String(daemonPort) });
  const first = await proxy.ask(1, 'server/discover');
  expect(first.result).toEqual(discoverResult());
  expect((await proxy.ask(2, 'tools/list')).result.tools).toHaveLength(7);
  const { pid } = await liveDaemon(home);
  process.kill(pid, 'SIGKILL');
  // Hold the pinned port (before the proxy's next daemon boots): none can come back until we let go.
  const holder = await holdPort(daemonPort);
  try {
    const t0 = Date.now();
    const during = await proxy.ask(3, 'server/discover');
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(during.result).toEqual(first.result);
    // a 2026 request carries its own context: the next daemon answers it without any handshake
    const listing = proxy.ask(4, 'tools/call', { name: 'list_instances', arguments: { scan: false } });
    await sleep(300);
    holder.close();
    const listed = await listing;
    expect(listed.result.isError).toBeFalsy();
    expect(listed.result.resultType).toBe('complete');
  } finally {
    holder.close();
  }
  expect((await liveDaemon(home, pid)).pid).not.toBe(pid);
});

test('a 2026 wait_for in flight when the daemon is killed is re-sent (safe) and answered by the next daemon', async () => {
  const project = writeProject(join(home, 'project'), { ports: await freeRange(3) }).root;
  const { client, transport } = await stdioClient('modern', env(), [], project);
  reaper.track(transport.pid ?? undefined);
  clients.push(client);
  const game = await toolJson(client, 'launch_instance');
  reaper.track(game.pid);
  const waiting = client.callTool({
    name: 'call_tool',
    arguments: { port: game.port, name: 'wait_for', arguments: { path: 'game.score', equals: -1, timeoutMs: 4000 } },
  });
  await sleep(800);
  const { pid } = await liveDaemon(home);
  process.kill(pid, 'SIGKILL');
  const res = (await waiting) as { content: Array<{ text: string }>; isError?: boolean };
  // answered by the wait itself (it timed out on the next daemon), not refused as interrupted
  expect(res.content[0].text).toMatch(/^CommandTimeout/);
  expect((await liveDaemon(home, pid)).pid).not.toBe(pid);
  await toolJson(client, 'stop_instance', { port: game.port });
});

test('the instructions the proxy can answer with name every tool of the bridge toolset', () => {
  for (const name of BRIDGE_TOOL_NAMES) expect(INSTRUCTIONS).toContain(name);
});

test('a 2026 unsafe call acked before kill -9 is answered CallInterrupted and reaches the game exactly once', async () => {
  const port = await freePort();
  await startExampleGame(reaper, port, [], env());
  const { client, transport } = await stdioClient('modern', env());
  reaper.track(transport.pid ?? undefined);
  clients.push(client);
  const peek = await toolJson(client, 'call_tool', { port, name: 'peek' }); // the manifest is cached: the replay verdict reads it
  expect(peek.via).toBe('manifest');
  const { pid } = await liveDaemon(home);
  const frozen = (await (await fetch(`http://127.0.0.1:${port}/command?cmd=freeze&ms=4000`)).json()) as {
    accepted: boolean;
  };
  expect(frozen.accepted).toBe(true);
  const bumping = client.callTool({ name: 'call_tool', arguments: { port, name: 'bump', arguments: { tag: 'x' } } });
  // acked before it runs: once it waits unread at the frozen game, it is in flight
  await waitFor('the bump waiting at the frozen game', () => unreadBytesAt(port) > 0, 3000);
  process.kill(pid, 'SIGKILL');
  const res = (await bumping) as { content: Array<{ text: string }> };
  expect(res.content[0].text).toMatch(/^CallInterrupted: /);
  await waitFor('the bump applied after the freeze', async () => (await gameState(port)).game.bumps.x === 1, 20000);
  await toolJson(client, 'call_tool', { port, name: 'bump', arguments: { tag: 'after' } });
  expect((await gameState(port)).game.bumps).toEqual({ x: 1, after: 1 }); // a re-sent bump would have arrived before 'after'
}, 90000);
