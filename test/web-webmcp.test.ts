/**
 * A page's own WebMCP tools through the bridge, on the real proxy + daemon, the SDK client and
 * Debian's Chromium: a plain page (no kit) registers its tools through document.modelContext;
 * they are the game's toolset `webmcp`, described with their own schema, called with their
 * arguments checked, a throw a CommandFailed with its words, and the set follows the page as
 * it registers and aborts tools (an --eager session is told). A player-view session calls them
 * too. A Chromium without the feature shows no such toolset.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { call, connect, gameCall, type McpHandle, cleanedAfterAll, launchWebGame } from './helpers/mcp.js';
import { tempHome, waitFor } from './helpers/procs.js';

jest.setTimeout(180_000);

const PAGE = `<!doctype html><html><head><title>Tool page</title></head><body>
<h1>Tool page</h1><p id="count">0</p>
<script>
const mc = document.modelContext;
window.calls = 0;
if (mc) {
  const boom = new AbortController();
  mc.registerTool({
    name: 'add', description: 'Adds two numbers.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    annotations: { readOnlyHint: true },
    execute: async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  });
  mc.registerTool({
    name: 'bump', description: 'Counts a call on the page.',
    inputSchema: { type: 'object', properties: {} },
    execute: async () => { window.calls++; document.getElementById('count').textContent = String(window.calls); return 'bumped'; },
  });
  mc.registerTool({
    name: 'boom', description: 'Always throws.',
    inputSchema: { type: 'object', properties: {} },
    execute: async () => { throw new Error('the fuse was lit'); },
  }, { signal: boom.signal });
  mc.registerTool({
    name: 'swap', description: 'Registers later and unregisters boom.',
    inputSchema: { type: 'object', properties: {} },
    execute: async () => {
      boom.abort();
      mc.registerTool({ name: 'later', description: 'Came later.', inputSchema: { type: 'object', properties: {} }, execute: async () => 'late' });
      return 'swapped';
    },
  });
  let extra = null;
  mc.registerTool({
    name: 'toggle', description: 'Registers the tool extra, or unregisters it.',
    inputSchema: { type: 'object', properties: {} },
    execute: async () => {
      if (extra) { extra.abort(); extra = null; return 'off'; }
      extra = new AbortController();
      mc.registerTool({ name: 'extra', description: 'Comes and goes.', inputSchema: { type: 'object', properties: {} }, execute: async () => 'here' }, { signal: extra.signal });
      return 'on';
    },
  });
}
</script></body></html>`;

const cleanup = cleanedAfterAll();
let home: string;
let h: McpHandle;
let port: number;
let project: string;

beforeAll(async () => {
  const site = tempHome('gb-webmcp-site-');
  cleanup.homes.push(site);
  writeFileSync(join(site, 'index.html'), PAGE);
  const web = { static: site, kit: false };
  ({ h, port, home, project } = await launchWebGame({
    prefix: 'gb-webmcp-',
    name: 'tool-page',
    web,
    ports: 4,
    cleanup,
  }));
});

test("the page's registered tools are listed as the toolset webmcp", async () => {
  const list = (await call(h, 'list_toolsets', { port })).json;
  const names = list.toolsets.map((t: any) => t.name);
  expect(names).toEqual(expect.arrayContaining(['webmcp', 'bridge']));
  expect(names.indexOf('webmcp')).toBeLessThan(names.indexOf('bridge'));
  expect(list.toolsets.find((t: any) => t.name === 'webmcp').tools).toEqual(['add', 'boom', 'bump', 'swap', 'toggle']);
});

test('instance_log says WebMCP is on', async () => {
  const log = await call(h, 'instance_log', { port });
  expect(log.text).toContain('Chromium runs with WebMCP on (--enable-features=WebMCP)');
});

test('describe_toolset shows each page tool with its own schema and read-only hint', async () => {
  const d = (await call(h, 'describe_toolset', { port, toolset: 'webmcp' })).json;
  const add = d.tools.find((t: any) => t.name === 'add');
  expect(add).toMatchObject({
    description: 'Adds two numbers.',
    readOnly: true,
    player: true,
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  });
  expect(d.tools.find((t: any) => t.name === 'bump').readOnly).toBe(false);
});

test('a page tool called with valid arguments answers its text, structured content and the state after', async () => {
  const r = await gameCall(h, port, 'add', { a: 2, b: 40 });
  expect(r.json).toMatchObject({ port, tool: 'add', via: 'webmcp', result: '42', structuredContent: { sum: 42 } });
  expect(r.json.frame).toEqual(expect.any(Number));
  expect(r.json.game).toMatchObject({ title: 'Tool page' });
  const q = await gameCall(h, port, 'webmcp.bump');
  expect(q.json).toMatchObject({ via: 'webmcp', result: 'bumped' });
  const snap = await gameCall(h, port, 'snapshot');
  expect(snap.text).toMatch(/- text "1"/);
});

test('a page tool called with arguments its schema refuses fails as a UsageError before the page runs it', async () => {
  const wrongType = await gameCall(h, port, 'add', { a: 'two', b: 40 });
  expect(wrongType.text).toMatch(/^BridgeUsageError: .*add.*\ba\b/);
  const missing = await gameCall(h, port, 'add', { a: 2 });
  expect(missing.text).toMatch(/^BridgeUsageError: .*add.*\bb\b/);
});

test('a page tool that throws is a CommandFailed carrying its message', async () => {
  const r = await gameCall(h, port, 'boom');
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(/^CommandFailed: .*'boom'.*the fuse was lit/);
});

test('a tool registered after launch shows up and an aborted one goes', async () => {
  expect((await gameCall(h, port, 'swap')).json.result).toBe('swapped');
  const list = (await call(h, 'list_toolsets', { port })).json;
  expect(list.toolsets.find((t: any) => t.name === 'webmcp').tools).toEqual(['add', 'bump', 'later', 'swap', 'toggle']);
  expect((await gameCall(h, port, 'later')).json.result).toBe('late');
  const gone = await gameCall(h, port, 'boom');
  expect(gone.text).toMatch(/^CommandRejected: .*refused 'boom'/);
});

test("a player-view session calls the page's tools and is answered with the player's view of the state", async () => {
  const player = await connect({
    env: { GAME_BRIDGE_HOME: home },
    cwd: project,
    args: ['--no-scan', '--view', 'player', '--timeout', '10000'],
  });
  try {
    const d = (await call(player, 'describe_toolset', { port, toolset: 'webmcp' })).json;
    expect(d.tools.find((t: any) => t.name === 'add')).toMatchObject({ player: true, readOnly: true });
    const r = await gameCall(player, port, 'add', { a: 1, b: 2 });
    expect(r.json).toMatchObject({ port, tool: 'add', via: 'webmcp', result: '3', structuredContent: { sum: 3 } });
    expect(r.json.game).toBeUndefined();
    expect((await gameCall(player, port, 'bump')).json.result).toBe('bumped');
  } finally {
    await player.close();
  }
});

test('--eager announces tools/list_changed when the page registers a tool and again when it aborts it', async () => {
  const eager = await connect({
    env: { GAME_BRIDGE_HOME: home },
    cwd: project,
    args: ['--no-scan', '--eager', '--timeout', '10000'],
  });
  let changes = 0;
  eager.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
  const names = async () => (await eager.client.listTools()).tools.map((t) => t.name);
  try {
    expect(await names()).toEqual(expect.arrayContaining([`g${port}_webmcp_add`, `g${port}_webmcp_toggle`]));
    expect(await names()).not.toContain(`g${port}_webmcp_extra`);
    let seen = changes;
    expect((await call(eager, `g${port}_webmcp_toggle`)).json.result).toBe('on');
    await waitFor('tools/list_changed after the page registered a tool', () => changes > seen, 20_000);
    expect(await names()).toContain(`g${port}_webmcp_extra`);
    expect((await call(eager, `g${port}_webmcp_extra`)).json.result).toBe('here');
    seen = changes;
    expect((await call(eager, `g${port}_webmcp_toggle`)).json.result).toBe('off');
    await waitFor('tools/list_changed after the page aborted it', () => changes > seen, 20_000);
    expect(await names()).not.toContain(`g${port}_webmcp_extra`);
  } finally {
    await eager.close();
  }
});

test('a Chromium without WebMCP opens the same page with no webmcp toolset, as before', async () => {
  // Debian's Chromium as it comes: the bridge's switch that turns WebMCP on is left out
  const wrapper = join(home, 'chromium-no-webmcp');
  writeFileSync(
    wrapper,
    '#!/bin/sh\nfor a; do shift; [ "$a" = --enable-features=WebMCP ] || set -- "$@" "$a"; done\nexec /usr/bin/chromium "$@"\n',
  );
  chmodSync(wrapper, 0o755);
  const other = await connect({
    env: { GAME_BRIDGE_HOME: home, GAME_BRIDGE_CHROMIUM: wrapper },
    cwd: project,
    args: ['--no-scan', '--timeout', '10000'],
  });
  try {
    const launched = await call(other, 'launch_instance', {}, 120_000);
    if (launched.isError) throw new Error(launched.text);
    const p2 = launched.json.port;
    expect(p2).not.toBe(port);
    const list = (await call(other, 'list_toolsets', { port: p2 })).json;
    expect(list.toolsets.map((t: any) => t.name)).not.toContain('webmcp');
    const state = (await gameCall(other, p2, 'get_state')).json.state;
    expect(state.game).toMatchObject({ title: 'Tool page' });
    const missing = await gameCall(other, p2, 'add', { a: 1, b: 2 });
    expect(missing.text).toMatch(/^CommandRejected: /);
  } finally {
    await other.close();
  }
});
