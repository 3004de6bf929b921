/**
 * The player view through the real proxy + daemon (and the daemon's HTTP transport) with the SDK
 * client, on the tree fixture game: a player-view session cannot read debug state, call debug
 * tools, raw_command or passthrough names, or see unmarked objects or hidden nodes; it can do
 * what a player does; every answer names the view, and nothing in the session changes it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { call, cleanedAfterAll, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { endHttpDaemon, startHttpDaemon, type HttpDaemon } from './helpers/http-daemon.js';
import { sleep } from './helpers/fault.js';
import { Reaper, tempHome, waitFor } from './helpers/procs.js';
import { received, startTreeGame } from './helpers/tree-game.js';

const reaper = new Reaper();
const httpReaper = new Reaper();
const { homes, handles } = cleanedAfterAll();
let port: number;
let home: string;
let player: McpHandle;
let daemon: HttpDaemon | undefined;

beforeAll(async () => {
  home = tempHome('gb-view-');
  homes.push(home);
  port = await startTreeGame(reaper);
  player = await client(['--view', 'player']);
}, 60000);

afterAll(async () => {
  await reaper.reap();
  await endHttpDaemon(httpReaper, daemon);
});

async function client(args: string[], env: Record<string, string> = {}): Promise<McpHandle> {
  const c = await connect({ args: ['--no-scan', ...args], env: { GAME_BRIDGE_HOME: home, ...env } });
  handles.push(c);
  return c;
}

test('a player-view session reads only ui and the player section of the state', async () => {
  const whole = await gameCall(player, port, 'get_state');
  expect(whole.isError).toBe(false);
  expect(Object.keys(whole.json.state).sort()).toEqual(['frame', 'player', 'sessionEpoch', 'ui']);
  expect(whole.json.view).toBe('player');
  const secret = await gameCall(player, port, 'get_state', { path: 'game.secret' });
  expect(secret.isError).toBe(true);
  expect(secret.text).not.toContain('debug-only');
  expect((await gameCall(player, port, 'get_state', { path: 'player.presses' })).json.value).toBe(0);
}, 30000);

test.each([
  [
    'raw_command',
    'raw_command',
    { cmd: 'start' },
    /^BridgeUsageError: The bridge tool 'raw_command' is not available in the player view/,
  ],
  [
    'a game tool not marked for players',
    'boom',
    {},
    /^BridgeUsageError: The game's tool 'boom' \(not marked "player": true in its manifest\) is not available in the player view/,
  ],
  [
    'a passthrough name',
    'fizzle',
    {},
    /^BridgeUsageError: 'fizzle' \(not in the game's manifest, so a raw command\) is not available/,
  ],
  [
    'wait_for on the state',
    'wait_for',
    { path: 'game.secret', exists: true },
    /^BridgeUsageError: The bridge tool 'wait_for' is not available/,
  ],
])(
  'a player-view session is refused %s before anything reaches the game',
  async (_what, name, args, text) => {
    const before = (await received(port)).length;
    const r = await gameCall(player, port, name, args);
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(text);
    expect(r.json.view).toBe('player');
    expect((await received(port)).length).toBe(before);
  },
  30000,
);

test('a player-view session sees only the objects and nodes shown to players', async () => {
  const world = await gameCall(player, port, 'snapshot', { tree: 'world' });
  expect(world.json.objects.map((o: any) => o.id)).toEqual(['hero', 'crate-1', 'crate-2']);
  expect(world.text).not.toContain('gem');
  const near = await gameCall(player, port, 'find_objects', { near: { ref: 'hero', within: 10 } });
  expect(near.json.matches.map((m: any) => m.id)).toEqual(['crate-1']);
  const gem = await gameCall(player, port, 'find_objects', { near: { ref: 'gem', within: 10 } });
  expect(gem.isError).toBe(true);
  const refused = await gameCall(player, port, 'click', { ref: 'buy' });
  expect(refused.json).toMatchObject({
    kind: 'CommandFailed',
    reason: expect.stringContaining('not enough gold'),
    events: [],
  });
  expect(refused.json.game).toBeUndefined();
  const hidden = await gameCall(player, port, 'snapshot', { includeHidden: true });
  expect(hidden.text).toMatch(/^BridgeUsageError: snapshot: includeHidden is not available in the player view/);
  expect((await gameCall(player, port, 'snapshot')).text).not.toContain('cheat');
  const log = await call(player, 'instance_log', { port });
  expect(log.text).toMatch(/^BridgeUsageError: instance_log is not available in the player view/);
}, 30000);

test('a player-view session reads through resources only what get_state and snapshot show it', async () => {
  const read = async (kind: string) =>
    ((await player.client.readResource({ uri: `gamebridge://game/${port}/${kind}` })).contents[0] as { text: string })
      .text;
  const state = await read('state');
  expect(Object.keys(JSON.parse(state)).sort()).toEqual(['frame', 'player', 'sessionEpoch', 'ui']);
  expect(state).not.toContain('debug-only');
  const ui = await read('ui');
  expect(JSON.parse(ui).nodes.length).toBeGreaterThan(0);
  expect(ui).not.toMatch(/cheat/i);
  await expect(player.client.readResource({ uri: `gamebridge://game/${port}/log` })).rejects.toThrow(
    /instance_log is not available in the player view/,
  );
}, 30000);

test("a player-view session's subscriptions signal no change a player cannot see", async () => {
  const game = await startTreeGame(reaper);
  const debug = await client([]);
  const uris = [`gamebridge://game/${game}/state`, `gamebridge://game/${game}/ui`];
  const heard = (h: McpHandle) => {
    const seen: string[] = [];
    h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.push(n.params.uri));
    return seen;
  };
  const [byPlayer, byDebug] = [heard(player), heard(debug)];
  for (const h of [player, debug]) for (const uri of uris) await h.client.subscribeResource({ uri });
  await sleep(800);
  // commandResults change (debug state only), then a hidden node's name (debug ui only)
  await gameCall(debug, game, 'noop');
  await gameCall(debug, game, 'rename_cheat');
  await waitFor('the debug session hears both changes', () => uris.every((u) => byDebug.includes(u)), 10000);
  await sleep(1000);
  expect(byPlayer).toEqual([]);
  // what a player sees changing is still signalled to a player
  await gameCall(debug, game, 'start');
  await waitFor('the player hears the screen change', () => byPlayer.length >= 2, 10000);
  expect([...new Set(byPlayer)].sort()).toEqual(uris.sort());
  for (const h of [player, debug]) for (const uri of uris) await h.client.unsubscribeResource({ uri });
}, 60000);

test('a player-view session plays: clicks, sets values, calls the tools marked for players', async () => {
  const game = await startTreeGame(reaper);
  const vol = await gameCall(player, game, 'set_value', { ref: 'vol', value: 0.5 });
  expect(vol.json).toMatchObject({ applied: true, view: 'player' });
  expect(vol.json.game).toBeUndefined();
  expect(vol.json).toMatchObject({ player: { presses: 0 }, events: [] });
  const click = await gameCall(player, game, 'click', { ref: 'start' });
  expect(click.json).toMatchObject({ applied: true, view: 'player', screen: 'GameScreen' });
  expect((await gameCall(player, game, 'start')).json).toMatchObject({
    applied: true,
    via: 'manifest',
    view: 'player',
  });
  const tools = (await call(player, 'describe_toolset', { port: game, toolset: 'play' })).json.tools;
  expect(tools.find((t: any) => t.name === 'start').player).toBe(true);
  expect(tools.find((t: any) => t.name === 'boom').player).toBeUndefined();
}, 30000);

test("GAME_BRIDGE_VIEW sets the session's view (player or debug, told to it) and a bad view is refused", async () => {
  const byEnv = await client([], { GAME_BRIDGE_VIEW: 'player' });
  expect((await gameCall(byEnv, port, 'raw_command', { cmd: 'noop' })).isError).toBe(true);
  const debug = await client([]);
  const r = await gameCall(debug, port, 'get_state', { path: 'game.secret' });
  expect(r.json).toMatchObject({ value: 'debug-only', view: 'debug' });
  const bad = await client(['--view', 'god']);
  const refused = await gameCall(bad, port, 'get_state');
  expect(refused.isError).toBe(true);
  expect(refused.text).toContain("Bad --view 'god': give debug or player");
}, 30000);

test('over HTTP, /mcp?view=player opens a player session that a later request cannot widen', async () => {
  daemon = await startHttpDaemon(httpReaper);
  const url = new URL(`${daemon.url}?view=player`);
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${daemon.token}` } },
  });
  const c = new Client({ name: 'jest-http-player', version: '1.0.0' });
  await c.connect(transport);
  try {
    const r = (await c.callTool({
      name: 'call_tool',
      arguments: { port, name: 'raw_command', arguments: { cmd: 'noop' } },
    })) as any;
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(
      /^BridgeUsageError: The bridge tool 'raw_command' is not available in the player view/,
    );
    const s = (await c.callTool({ name: 'call_tool', arguments: { port, name: 'get_state' } })) as any;
    expect(Object.keys(s.structuredContent.state).sort()).toEqual(['frame', 'player', 'sessionEpoch', 'ui']);
    expect(s.structuredContent.view).toBe('player');
  } finally {
    await c.close().catch(() => undefined);
  }
}, 60000);
