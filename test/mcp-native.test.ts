/**
 * Resources and prompts (docs/TOOLS.md, "Resources, prompts and the skill") through the real pair
 * (proxy + daemon) and over HTTP, with the SDK v2 client in both protocol eras: the lists and
 * templates, reading each kind, a port with no game, subscriptions (an update after another
 * session changes the game, none while idle, none after unsubscribe or the session's end, and
 * one after a daemon kill -9), list_changed when a game comes, and the prompts.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { Reaper, removeDir, tempHome, waitFor } from './helpers/procs.js';
import { freePort, freeRange } from './helpers/ports.js';
import { fixtureHealth, startFixture } from './helpers/fixture-game.js';
import { httpClientV2, stdioClient, toolJson, type EraMode } from './helpers/v2-client.js';
import { daemonFacts, liveDaemon, reapAndReport, sleep } from './helpers/fault.js';
import { endHttpDaemon, startHttpDaemon, type HttpDaemon } from './helpers/http-daemon.js';
import { writeProject } from './helpers/project.js';
import { startExampleGame } from './helpers/procs.js';
import { startTreeGame } from './helpers/tree-game.js';
import { PROMPTS, toolsNamedBy } from '../daemon/prompts/prompts.js';
import { TOOLS } from '../daemon/tools/index.js';
import { BRIDGE_TOOL_NAMES } from '../daemon/bridge/index.js';

const reaper = new Reaper();
const clients: Client[] = [];
const groups: number[] = [];
let home = '';
let d: HttpDaemon | undefined;

beforeEach(() => {
  home = tempHome('gb-native-');
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  const info = daemonFacts(home);
  if (info) reaper.track(info.pid);
  await endHttpDaemon(reaper, d);
  d = undefined;
  await reaper.reap();
  for (const pid of groups.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  await reapAndReport(home);
  removeDir(home);
});

const env = (extra: Record<string, string> = {}) => ({
  GAME_BRIDGE_HOME: home,
  GAME_BRIDGE_IDLE_EXIT_MS: '60000',
  ...extra,
});

async function open(
  mode: EraMode,
  extra: Record<string, string> = {},
  cwd?: string,
  args: string[] = [],
): Promise<Client> {
  const { client, transport } = await stdioClient(mode, env(extra), args, cwd);
  reaper.track(transport.pid ?? undefined);
  clients.push(client);
  return client;
}

/** Count `notifications/resources/updated` per URI, and list_changed. */
function counter(client: Client) {
  const updates = new Map<string, number>();
  let listChanged = 0;
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    const uri = String(n.params.uri);
    updates.set(uri, (updates.get(uri) ?? 0) + 1);
  });
  client.setNotificationHandler('notifications/resources/list_changed', () => void listChanged++);
  return {
    of: (uri: string) => updates.get(uri) ?? 0,
    get listChanged() {
      return listChanged;
    },
  };
}

/** Subscribe in the client's era: resources/subscribe (2025) or subscriptions/listen (2026). */
async function subscribe(client: Client, uri: string): Promise<() => Promise<void>> {
  if (client.getProtocolEra() === 'modern') {
    const sub = await client.listen({ resourceSubscriptions: [uri] });
    return () => sub.close();
  }
  await client.subscribeResource({ uri });
  return async () => void (await client.unsubscribeResource({ uri }));
}

const bump = (client: Client, port: number, tag: string) =>
  toolJson(client, 'call_tool', { port, name: 'bump', arguments: { tag } });

const ERAS: EraMode[] = ['legacy', 'modern'];

describe.each(ERAS)('stdio through the proxy, %s era', (mode) => {
  test("a live game's resources of every kind are listed, templated and read", async () => {
    const port = await freePort();
    await startExampleGame(reaper, port, ['--screenshot'], { GAME_BRIDGE_HOME: home });
    const client = await open(mode, { GAME_BRIDGE_SCAN_RANGE: String(port) });
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        'gamebridge://instances',
        ...['state', 'manifest', 'log', 'ui', 'screenshot'].map((k) => `gamebridge://game/${port}/${k}`),
      ]),
    );
    const shot = resources.find((r) => r.uri.endsWith('/screenshot'))!;
    expect(shot).toMatchObject({ mimeType: 'image/png', title: `Crate Stack :${port} screenshot` });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(Object.fromEntries(resourceTemplates.map((t) => [t.uriTemplate, t.mimeType]))).toEqual({
      'gamebridge://game/{port}/state': 'application/json',
      'gamebridge://game/{port}/manifest': 'application/json',
      'gamebridge://game/{port}/log': 'text/plain',
      'gamebridge://game/{port}/ui': 'application/json',
      'gamebridge://game/{port}/screenshot': 'image/png',
    });

    const read = async (uri: string) =>
      (await client.readResource({ uri })).contents[0] as unknown as Record<string, string>;
    const instances = JSON.parse((await read('gamebridge://instances')).text);
    expect(instances.live.map((l: { port: number }) => l.port)).toContain(port);
    const state = await read(`gamebridge://game/${port}/state`);
    expect(state.mimeType).toBe('application/json');
    expect(JSON.parse(state.text).game).toHaveProperty('score', 0);
    const manifest = JSON.parse((await read(`gamebridge://game/${port}/manifest`)).text);
    const play = manifest.toolsets.find((t: { toolset: string }) => t.toolset === 'play');
    expect(play.tools.map((t: { name: string }) => t.name)).toContain('drop');
    const png = await read(`gamebridge://game/${port}/screenshot`);
    expect(png.mimeType).toBe('image/png');
    expect(Buffer.from(png.blob, 'base64').subarray(1, 4).toString()).toBe('PNG');
    // a game this bridge did not launch has no log here: instance_log's refusal
    await expect(read(`gamebridge://game/${port}/log`)).rejects.toThrow(/BridgeUsageError: No log for port/);
    const ui = JSON.parse((await read(`gamebridge://game/${port}/ui`)).text);
    expect(ui).toMatchObject({ screen: 'MenuScreen', revision: expect.any(Number) });
    expect(JSON.stringify(ui.nodes)).toContain('"role":"button","name":"Start"');
  });

  test('a port with no game: the error class and next step a tool call gives', async () => {
    const port = await freePort();
    const client = await open(mode);
    const tool = (await client.callTool({ name: 'call_tool', arguments: { port, name: 'get_state' } })) as {
      content: Array<{ text: string }>;
    };
    const toolText = tool.content[0].text;
    expect(toolText).toMatch(/^GameOffline: /);
    const err = await client.readResource({ uri: `gamebridge://game/${port}/state` }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toContain(toolText.split('\n')[0]);
    // a game without a UI tree: the refusal a tool gives, class first
    const plain = await startFixture(reaper, env(), (g) => groups.push(g));
    await expect(client.readResource({ uri: `gamebridge://game/${plain}/ui` })).rejects.toThrow(
      /CapabilityMissing: .*capability "ui"/,
    );
    await expect(client.readResource({ uri: 'gamebridge://nothing' })).rejects.toThrow(
      /BridgeUsageError: There is no resource/,
    );
  });

  test('subscribe: an update after another session changes the game, none while idle, none after unsubscribe', async () => {
    const port = await startFixture(reaper, env(), (g) => groups.push(g));
    const watcher = await open(mode);
    const other = await open(mode);
    const seen = counter(watcher);
    const uri = `gamebridge://game/${port}/state`;
    const polls0 = (await fixtureHealth(port)).statePolls;
    await sleep(600);
    expect((await fixtureHealth(port)).statePolls).toBe(polls0); // nobody subscribed: nobody polls
    const unsubscribe = await subscribe(watcher, uri);
    await sleep(600); // the watch's first look is its baseline
    await bump(other, port, 'a');
    await waitFor('an update', () => seen.of(uri) >= 1, 5000);
    const afterChange = seen.of(uri);
    await sleep(3000); // idle: the frame grows, nothing else changes
    expect(seen.of(uri)).toBe(afterChange);
    await unsubscribe();
    await sleep(600);
    await bump(other, port, 'b');
    const polls1 = (await fixtureHealth(port)).statePolls;
    await sleep(1500);
    expect(seen.of(uri)).toBe(afterChange);
    expect((await fixtureHealth(port)).statePolls).toBe(polls1); // the watch stopped with the subscription
  }, 60000);

  test("a session's end ends its subscriptions", async () => {
    const port = await startFixture(reaper, env(), (g) => groups.push(g));
    const watcher = await open(mode);
    await subscribe(watcher, `gamebridge://game/${port}/state`);
    await sleep(800);
    const polling = (await fixtureHealth(port)).statePolls;
    expect(polling).toBeGreaterThan(0);
    await watcher.close();
    await sleep(1000);
    const after = (await fixtureHealth(port)).statePolls;
    await sleep(1500);
    expect((await fixtureHealth(port)).statePolls).toBe(after);
  }, 60000);

  test('a subscription survives a daemon kill -9: the next daemon watches for it', async () => {
    const port = await startFixture(reaper, env(), (g) => groups.push(g));
    const watcher = await open(mode);
    const other = await open(mode);
    const seen = counter(watcher);
    const uri = `gamebridge://game/${port}/state`;
    await subscribe(watcher, uri);
    await sleep(600);
    const { pid } = await liveDaemon(home);
    process.kill(pid, 'SIGKILL');
    const next = await liveDaemon(home, pid);
    reaper.track(next.pid);
    // the watcher's proxy reconnects when it has something to say, or on its own: give it a call
    await toolJson(watcher, 'list_instances', {});
    await sleep(800);
    const before = seen.of(uri);
    await bump(other, port, 'after-restart');
    await waitFor('an update from the next daemon', () => seen.of(uri) > before, 8000);
  }, 90000);

  test('list_changed when a launched game comes and goes', async () => {
    const project = writeProject(join(home, 'project'), { ports: await freeRange(2) });
    const client = await open(mode, {}, project.root);
    const seen = counter(client);
    if (client.getProtocolEra() === 'modern') await client.listen({ resourcesListChanged: true });
    const game = await toolJson(client, 'launch_instance');
    reaper.track(game.pid);
    await waitFor('list_changed after the launch', () => seen.listChanged >= 1, 5000);
    const log = (await client.readResource({ uri: `gamebridge://game/${game.port}/log` })).contents[0] as {
      mimeType: string;
      text: string;
    };
    expect(log.mimeType).toBe('text/plain');
    expect(log.text).toContain('listening on 127.0.0.1');
    const n = seen.listChanged;
    await toolJson(client, 'stop_instance', { port: game.port });
    await waitFor('list_changed after the stop', () => seen.listChanged > n, 5000);
  }, 90000);

  test('each prompt is listed with the arguments it is got with', async () => {
    const client = await open(mode);
    const { prompts } = await client.listPrompts();
    expect(Object.fromEntries(prompts.map((p) => [p.name, (p.arguments ?? []).map((a) => a.name)]))).toEqual({
      playtest: ['goal'],
      reproduce_bug: ['description'],
      compare_builds: ['configA', 'configB'],
      write_regression_test: ['scenario'],
      heal_test: ['test', 'failure'],
    });
    const got = await client.getPrompt({
      name: 'compare_builds',
      arguments: { configA: 'a/gb.json', configB: 'b/gb.json' },
    });
    const text = (got.messages[0].content as { text: string }).text;
    expect(text).toContain('launch_instance` {config: "a/gb.json"}');
    expect(text).toContain('game-bridge-mcp test --compare a/gb.json b/gb.json');
    await expect(client.getPrompt({ name: 'playtest', arguments: {} })).rejects.toThrow(
      /BridgeUsageError: The prompt 'playtest' needs 'goal'/,
    );
  });
});

/**
 * A game that publishes a UI tree (capability "ui"): each GET /ui is a new frameSequence, the
 * revision moves only when the test says so. Served from the test process (the kits gain their
 * UI trees elsewhere).
 */
async function uiGame(): Promise<{ port: number; revise(): void; server: Server }> {
  const port = await freePort();
  let frame = 0;
  let frameSequence = 0;
  let revision = 1;
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = createServer((req, res) => {
    frame++;
    const path = (req.url ?? '').split('?')[0];
    if (path === '/health') return json(res, 200, { ok: true, frame, capabilities: ['ui'] });
    if (path === '/state') return json(res, 200, { frame, ui: { screen: 'MenuScreen' } });
    if (path === '/ui')
      return json(res, 200, {
        sessionEpoch: 0,
        frameSequence: ++frameSequence,
        revision,
        screen: 'MenuScreen',
        nodes: [{ id: 'start', role: 'button', name: revision > 1 ? 'Restart' : 'Start' }],
      });
    json(res, 404, { error: 'no such endpoint' });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, revise: () => void revision++, server };
}

test.each(ERAS)(
  '%s era: a subscriber to the ui resource hears a new revision, not a new frameSequence',
  async (mode) => {
    const game = await uiGame();
    try {
      const client = await open(mode);
      const uri = `gamebridge://game/${game.port}/ui`;
      const tree = JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text);
      expect(tree.nodes[0]).toMatchObject({ id: 'start', role: 'button', name: 'Start' });
      const seen = counter(client);
      await subscribe(client, uri);
      await sleep(2000); // eight looks, each a new frameSequence of the same revision
      expect(seen.of(uri)).toBe(0);
      game.revise();
      await waitFor('an update for the new revision', () => seen.of(uri) >= 1, 5000);
      await sleep(1000);
      expect(seen.of(uri)).toBe(1);
    } finally {
      game.server.closeAllConnections();
      game.server.close();
    }
  },
);

test.each(ERAS)('--no-daemon, %s era: a subscriber hears another change of the game', async (mode) => {
  const port = await startFixture(reaper, env(), (g) => groups.push(g));
  const client = await open(mode, {}, undefined, ['--no-daemon']);
  const seen = counter(client);
  const uri = `gamebridge://game/${port}/state`;
  await subscribe(client, uri);
  await sleep(600);
  await bump(client, port, 'in-process');
  await waitFor('an update from the in-process engine', () => seen.of(uri) >= 1, 5000);
});

describe.each(ERAS)('HTTP /mcp, %s era', (mode) => {
  test('reads, subscribes, hears an update after another session changes the game, none while idle', async () => {
    d = await startHttpDaemon(reaper, { home });
    const port = await startFixture(reaper, env(), (g) => groups.push(g));
    const watcher = await httpClientV2(mode, d.url, d.token);
    const other = await httpClientV2(mode, d.url, d.token);
    clients.push(watcher, other);
    const uri = `gamebridge://game/${port}/state`;
    const state = (await watcher.readResource({ uri })).contents[0] as { text: string };
    expect(JSON.parse(state.text).game.generation).toBe(1);
    const seen = counter(watcher);
    const unsubscribe = await subscribe(watcher, uri);
    await sleep(800);
    await bump(other, port, 'http');
    await waitFor('an update over HTTP', () => seen.of(uri) >= 1, 5000);
    const n = seen.of(uri);
    await sleep(2500);
    expect(seen.of(uri)).toBe(n);
    await unsubscribe();
    await sleep(800);
    await bump(other, port, 'http-2');
    await sleep(1500);
    expect(seen.of(uri)).toBe(n);
  }, 60000);
});

/*
 * DEPENDS ON BRANCH saved-tests (assert, save_test, run_test): the prompts name the tools it
 * adds. Until it has landed, those names are listed here as pending and the check covers every
 * other name (trees' snapshot, click and wait_for_node have landed and are checked).
 */
const PENDING_ON_OTHER_BRANCHES: string[] = [];

test('every tool a prompt names is an MCP tool or a bridge tool', () => {
  const known = new Set<string>([...TOOLS.map((t) => t.name), ...BRIDGE_TOOL_NAMES]);
  const pending = PENDING_ON_OTHER_BRANCHES.filter((n) => !known.has(n));
  if (pending.length) console.warn(`prompts name tools not in this build yet (other branches): ${pending.join(', ')}`);
  for (const p of PROMPTS) {
    const text = p.text(Object.fromEntries(p.arguments.map((a) => [a.name, `<${a.name}>`])));
    for (const name of toolsNamedBy(text)) {
      if (pending.includes(name)) continue;
      expect(`${p.name}: ${name} ${known.has(name) ? 'exists' : 'is no tool'}`).toBe(`${p.name}: ${name} exists`);
    }
  }
});

test('a game that serves no UI tree and no screenshot is listed without those resources', async () => {
  const port = await startTreeGame(reaper, ['--no-trees']);
  const client = await open('legacy', { GAME_BRIDGE_SCAN_RANGE: String(port) });
  const { resources } = await client.listResources();
  expect(resources.map((r) => r.uri).filter((u) => u.includes(`/${port}/`))).toEqual(
    ['state', 'manifest', 'log'].map((k) => `gamebridge://game/${port}/${k}`),
  );
}, 60000);

/** Rows `| \`first\` | second | …` of one `## heading` section of docs/TOOLS.md. */
function docRows(heading: string): Array<[string, string]> {
  const text = readFileSync(join(process.cwd(), 'docs', 'TOOLS.md'), 'utf8');
  const section = text.split(`\n## ${heading}\n`)[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| `([^`]+)` \| ([^|]*) \|/gm)].map((m) => [m[1], m[2].trim()]);
}

test("docs/TOOLS.md's resources and prompts are the ones the server lists", async () => {
  const client = await open('legacy');
  const { resourceTemplates } = await client.listResourceTemplates();
  const { resources } = await client.listResources();
  const listed = [
    ...resources.filter((r) => r.uri === 'gamebridge://instances').map((r) => [r.uri, `\`${r.mimeType}\``]),
    ...resourceTemplates.map((t) => [t.uriTemplate, `\`${t.mimeType}\``]),
  ];
  expect(docRows('resources')).toEqual(listed);
  const { prompts } = await client.listPrompts();
  expect(docRows('prompts')).toEqual(
    prompts.map((p) => [p.name, (p.arguments ?? []).map((a) => `\`${a.name}\``).join(', ')]),
  );
});
