/**
 * MCP over Streamable HTTP at /mcp on a real daemon: the SDK's HTTP client transport drives the
 * example game end to end, and the listener refuses a missing or wrong token (401) and a
 * foreign Origin (403); a pinned port that is taken is a clear error.
 */
import { writeProject } from './helpers/project.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI, collectOutput, exitCode, Reaper, removeDir, tempHome, waitGone } from './helpers/procs.js';
import { freeRange } from './helpers/ports.js';
import { endHttpDaemon, startHttpDaemon, type HttpDaemon } from './helpers/http-daemon.js';
import { join } from 'node:path';
import { request } from 'node:http';

const reaper = new Reaper();
let d: HttpDaemon | undefined;
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await endHttpDaemon(reaper, d);
  d = undefined;
});

async function httpClient(daemon: HttpDaemon): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(daemon.url), {
    requestInit: { headers: { Authorization: `Bearer ${daemon.token}` } },
  });
  const client = new Client({ name: 'jest-http', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** POST /mcp with the right token and the given Host header (fetch may not set Host). */
function statusWithHost(daemon: HttpDaemon, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: daemon.port,
        path: '/mcp',
        method: 'POST',
        headers: {
          host,
          authorization: `Bearer ${daemon.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.once('error', reject);
    req.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'h', version: '1' } },
      }),
    );
  });
}

async function callJson(client: Client, name: string, args: Record<string, unknown> = {}) {
  const res = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60000 })) as {
    content: Array<{ text?: string }>;
    isError?: boolean;
    structuredContent?: Record<string, any>;
  };
  const text = res.content[0]?.text ?? '';
  if (res.isError) throw new Error(text);
  return (res.structuredContent ?? JSON.parse(text)) as Record<string, any>;
}

test('an HTTP client launches the example game, drives it, reads its state and stops it', async () => {
  d = await startHttpDaemon(reaper);
  const project = writeProject(join(d.home, 'project'), { ports: await freeRange(3) }).root;
  const client = await httpClient(d);
  expect((await client.listTools()).tools.map((t) => t.name)).toHaveLength(7);

  const launched = await callJson(client, 'launch_instance', { config: join(project, 'gamebridge.json') });
  reaper.track(launched.pid);
  expect((await callJson(client, 'call_tool', { port: launched.port, name: 'start' })).applied).toBe(true);
  const dropped = await callJson(client, 'call_tool', { port: launched.port, name: 'drop', arguments: { x: 3 } });
  expect(dropped.applied).toBe(true);
  const crates = await callJson(client, 'call_tool', {
    port: launched.port,
    name: 'get_state',
    arguments: { path: 'game.crates' },
  });
  expect(crates).toMatchObject({ path: 'game.crates' });
  expect((crates.value as unknown[]).length).toBeGreaterThanOrEqual(1);
  const listed = await callJson(client, 'list_instances');
  expect((listed.live as any[]).find((r) => r.port === launched.port)).toMatchObject({
    launchedByThisBridge: true,
    owner: 'you',
  });
  const stopped = await callJson(client, 'stop_instance', { port: launched.port });
  expect(stopped).toMatchObject({ port: launched.port });
  expect(await waitGone(launched.pid)).toBe(true);
});

test('a missing or wrong token is 401, a foreign Origin 403, a foreign Host 403', async () => {
  d = await startHttpDaemon(reaper);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  const post = (headers: Record<string, string>) =>
    fetch(d!.url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    });
  const none = await post({});
  expect(none.status).toBe(401);
  expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
  expect((await post({ authorization: `Bearer ${'0'.repeat(64)}` })).status).toBe(401);
  expect((await post({ authorization: `Bearer ${d.token}`, origin: 'https://evil.example' })).status).toBe(403);
  expect((await post({ authorization: `Bearer ${d.token}`, origin: `http://localhost:${d.port + 1}` })).status).toBe(
    403,
  );
  expect(await statusWithHost(d, `evil.example:${d.port}`)).toBe(403);
  expect(await statusWithHost(d, `127.0.0.1:${d.port}`)).not.toBe(403);
  // the SDK client with a wrong token fails to connect; nothing is served
  const wrong = new StreamableHTTPClientTransport(new URL(d.url), {
    requestInit: { headers: { Authorization: 'Bearer nope' } },
  });
  await expect(new Client({ name: 'x', version: '1' }).connect(wrong)).rejects.toThrow(/401|Unauthorized/);
});

test('the token survives a daemon restart on the pinned port, so a stored client configuration keeps working', async () => {
  d = await startHttpDaemon(reaper);
  const printed = reaper.spawn(process.execPath, [CLI, 'token'], { env: { ...process.env, ...d.env } });
  const out = collectOutput(printed);
  expect(await exitCode(printed)).toBe(0);
  expect(out.text.trim()).toBe(d.token);
  process.kill(d.pid, 'SIGKILL');
  await waitGone(d.pid);
  const again = await startHttpDaemon(reaper, { home: d.home, port: d.port });
  expect(again.token).toBe(d.token);
  const client = await httpClient(d); // the URL and token stored before the restart
  expect((await client.listTools()).tools).toHaveLength(7);
});

test('a pinned daemon port that is taken is refused with a clear error and exit code 2', async () => {
  d = await startHttpDaemon(reaper);
  const otherHome = tempHome('gb-http-other-');
  try {
    const other = reaper.spawn(process.execPath, [CLI, 'daemon', '--port', String(d.port)], {
      env: { ...process.env, GAME_BRIDGE_HOME: otherHome },
    });
    const err = collectOutput(other);
    expect(await exitCode(other)).toBe(2);
    expect(err.text).toMatch(/BridgeUsageError: The daemon port \d+ .* is taken by another program/);
  } finally {
    removeDir(otherHome);
  }
});
