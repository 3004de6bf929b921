/** Manifest normalisation (SPEC §2 /tools) and the per-port manifest cache (SPEC §5). */
import http from 'node:http';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GameClient } from '../daemon/game/client.js';
import { ManifestCache } from '../daemon/game/cache.js';
import { bridgeToolset, fallbackManifest, findTool, normaliseManifest, toolInputSchema, type Manifest } from '../daemon/game/manifest.js';
import { freePort } from './helpers/ports.js';
import { PY_GAME, Reaper, removeDir, startPyGame, tempHome } from './helpers/procs.js';

const toolsetNames = (m: Manifest) => m.toolsets.map((t) => t.name);
const play = (m: Manifest) => m.toolsets.find((t) => t.name === 'play')!;

describe('normaliseManifest', () => {
  const specExample = {
    game: { name: 'Orbital Freight', version: '0.9.2', protocol: 1 },
    toolsets: [
      {
        name: 'play',
        description: 'Play the game',
        tools: [
          {
            name: 'drop',
            description: 'Drop a crate',
            args: [
              { name: 'x', type: 'number', description: 'World x', required: true, default: null },
              { name: 'settle', type: 'boolean', default: 'true' },
            ],
          },
        ],
      },
    ],
    passthrough: { description: 'anything else', examples: ['set_seed { seed }'] },
  };

  test('the SPEC example: game info, toolsets, args, passthrough, plus the bridge toolset', () => {
    const m = normaliseManifest(specExample, 'game');
    expect(m.source).toBe('game');
    expect(m.warnings).toEqual([]);
    expect(m.game).toEqual({ name: 'Orbital Freight', version: '0.9.2', protocol: 1 });
    expect(toolsetNames(m)).toEqual(['play', 'bridge']);
    const drop = findTool(m, 'drop')!;
    expect(drop.toolset).toBe('play');
    expect(drop.readOnly).toBe(false);
    expect(drop.args).toEqual([
      { name: 'x', type: 'number', description: 'World x', required: true },
      { name: 'settle', type: 'boolean', description: '', required: false, default: 'true' },
    ]);
    expect(m.passthrough).toEqual({ description: 'anything else', examples: ['set_seed { seed }'] });
  });

  test('toolsets as a map name → toolset, and as a map name → list of tools', () => {
    const m = normaliseManifest({
      toolsets: {
        play: { description: 'P', tools: [{ name: 'drop' }] },
        debug: [{ name: 'spawn' }, { name: 'kill_all' }],
      },
    });
    expect(toolsetNames(m)).toEqual(['play', 'debug', 'bridge']);
    expect(play(m).description).toBe('P');
    expect(findTool(m, 'kill_all')!.toolset).toBe('debug');
  });

  test('tools as a map name → tool', () => {
    const m = normaliseManifest({ toolsets: [{ name: 'play', tools: { drop: { description: 'D' }, undo: {} } }] });
    expect(play(m).tools.map((t) => t.name)).toEqual(['drop', 'undo']);
    expect(findTool(m, 'drop')!.description).toBe('D');
  });

  test.each(['args', 'arguments', 'params'])('arguments under `%s`', (key) => {
    const m = normaliseManifest({ toolsets: [{ name: 'play', tools: [{ name: 'drop', [key]: [{ name: 'x', type: 'number' }] }] }] });
    expect(findTool(m, 'drop')!.args).toEqual([{ name: 'x', type: 'number', description: '', required: false }]);
    expect(m.warnings).toEqual([]);
  });

  test('arguments as bare names and as a map name → {type, description}', () => {
    const m = normaliseManifest({
      toolsets: [
        {
          name: 'play',
          tools: [
            { name: 'bare', args: ['x', 'y'] },
            { name: 'mapped', args: { x: { type: 'float', description: 'World x', required: 'true' }, n: 'int', tag: null } },
          ],
        },
      ],
    });
    expect(findTool(m, 'bare')!.args).toEqual([
      { name: 'x', type: 'any', description: '', required: false },
      { name: 'y', type: 'any', description: '', required: false },
    ]);
    expect(findTool(m, 'mapped')!.args).toEqual([
      { name: 'x', type: 'number', description: 'World x', required: true },
      { name: 'n', type: 'integer', description: '', required: false },
      { name: 'tag', type: 'any', description: '', required: false },
    ]);
  });

  test('defaults: strings, numbers, booleans as text; null means none; unknown types become any', () => {
    const m = normaliseManifest({
      toolsets: [
        {
          name: 'play',
          tools: [
            {
              name: 't',
              args: [
                { name: 'a', type: 'number', default: '0.05' },
                { name: 'b', type: 'number', default: 0.05 },
                { name: 'c', type: 'boolean', default: false },
                { name: 'd', type: 'string', default: null },
                { name: 'e', type: 'Vector3' },
              ],
            },
          ],
        },
      ],
    });
    const args = findTool(m, 't')!.args;
    expect(args.map((a) => a.default)).toEqual(['0.05', '0.05', 'false', undefined, undefined]);
    expect('default' in args[3]).toBe(false);
    expect(args[4].type).toBe('any');
  });

  test('readOnly is honoured in its spellings', () => {
    const m = normaliseManifest({
      toolsets: [
        {
          name: 'play',
          tools: [{ name: 'a', readOnly: true }, { name: 'b', readonly: true }, { name: 'c', read_only: 'true' }, { name: 'd', readOnly: false }, { name: 'e' }],
        },
      ],
    });
    expect(play(m).tools.map((t) => [t.name, t.readOnly])).toEqual([['a', true], ['b', true], ['c', true], ['d', false], ['e', false]]);
  });

  test('malformed tools are dropped with warnings; the rest survive', () => {
    const m = normaliseManifest({
      toolsets: [
        {
          name: 'play',
          tools: [
            { description: 'no name' },
            { name: 42 },
            'just a string',
            null,
            { name: 'bad_args', args: 7 },
            { name: 'nameless_arg', args: [{ type: 'number' }] },
            { name: 'dup_arg', args: ['x', 'x'] },
            { name: 'good', args: ['x'] },
            { name: 'good' },
          ],
        },
        { description: 'a toolset with no name', tools: [{ name: 'lost' }] },
      ],
    });
    expect(play(m).tools.map((t) => t.name)).toEqual(['good']);
    expect(m.warnings.length).toBe(9);
    expect(m.warnings.join('\n')).toMatch(/bad_args/);
    expect(m.warnings.join('\n')).toMatch(/nameless_arg/);
    expect(m.warnings.join('\n')).toMatch(/second tool named 'good'/);
    expect(toolsetNames(m)).toEqual(['play', 'bridge']);
  });

  test.each([null, 'hello', 42, [1, 2]])('a manifest that is not an object (%p) lists only the bridge toolset, with a warning', (raw) => {
    const m = normaliseManifest(raw, 'file');
    expect(m.source).toBe('file');
    expect(toolsetNames(m)).toEqual(['bridge']);
    expect(m.warnings.length).toBe(1);
  });

  test('toolsets of the wrong type give an empty list with a warning', () => {
    const m = normaliseManifest({ game: { name: 'G' }, toolsets: 'play' });
    expect(toolsetNames(m)).toEqual(['bridge']);
    expect(m.warnings[0]).toMatch(/toolsets/);
    expect(m.game.name).toBe('G');
  });

  test('a game tool named like a bridge tool is kept beside it; a game `bridge` toolset is merged', () => {
    const m = normaliseManifest({
      toolsets: [
        { name: 'play', tools: [{ name: 'health', description: 'the player health', readOnly: true }] },
        { name: 'bridge', tools: [{ name: 'get_state', description: 'game copy' }, { name: 'extra' }] },
      ],
    });
    expect(toolsetNames(m)).toEqual(['play', 'bridge']);
    expect(findTool(m, 'health')!.toolset).toBe('play');
    expect(findTool(m, 'health', 'bridge')!.description).toMatch(/GET \/health/);
    expect(findTool(m, 'bridge.health')!.toolset).toBe('bridge');
    const bridge = m.toolsets.find((t) => t.name === 'bridge')!;
    expect(bridge.tools.map((t) => t.name)).toEqual(['get_state', 'wait_for', 'raw_command', 'health', 'screenshot', 'extra']);
    expect(findTool(m, 'get_state')!.description).not.toBe('game copy');
    expect(m.warnings.join('\n')).toMatch(/get_state/);
  });
});

describe('bridge toolset, fallback and schemas', () => {
  test('bridge tools and their read-only flags', () => {
    const b = bridgeToolset();
    expect(b.tools.map((t) => [t.name, t.readOnly])).toEqual([
      ['get_state', true],
      ['wait_for', true],
      ['raw_command', false],
      ['health', true],
      ['screenshot', true],
    ]);
    const waitFor = b.tools.find((t) => t.name === 'wait_for')!;
    expect(waitFor.args.map((a) => a.name)).toEqual(['path', 'equals', 'notEquals', 'exists', 'gt', 'gte', 'lt', 'lte', 'contains', 'matches', 'timeoutMs']);
    for (const t of b.tools) expect(t.description.length).toBeGreaterThan(20);
  });

  test('fallbackManifest has only the bridge toolset', () => {
    const m = fallbackManifest();
    expect(m.source).toBe('fallback');
    expect(toolsetNames(m)).toEqual(['bridge']);
  });

  test('toolInputSchema folds defaults into the description and never emits `default`', () => {
    const m = normaliseManifest({
      toolsets: [
        {
          name: 'play',
          tools: [
            {
              name: 'drop',
              args: [
                { name: 'x', type: 'number', description: 'World x', required: true },
                { name: 'settle', type: 'boolean', description: 'Wait for physics', default: 'true' },
                { name: 'speed', type: 'number', default: 0.05 },
                { name: 'anything', type: 'who-knows' },
              ],
            },
          ],
        },
      ],
    });
    const schema = toolInputSchema(findTool(m, 'drop')!);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        x: { type: 'number', description: 'World x' },
        settle: { type: 'boolean', description: 'Wait for physics. Default: true.' },
        speed: { type: 'number', description: 'Default: 0.05.' },
        anything: {},
      },
      required: ['x'],
    });
    expect(JSON.stringify(schema)).not.toMatch(/"default"/);
    const rawCmd = toolInputSchema(findTool(fallbackManifest(), 'raw_command')!);
    expect(rawCmd.required).toEqual(['cmd']);
    expect(JSON.stringify(rawCmd)).not.toMatch(/"default"/);
    expect(toolInputSchema(findTool(fallbackManifest(), 'health')!)).toEqual({ type: 'object', properties: {} });
  });
});

/** A tiny in-process game surface whose /tools answer the test controls. */
interface ToolsServer {
  port: number;
  toolsHits: number;
  tools: { status: number; body: unknown } | (() => { status: number; body: unknown });
  close(): Promise<void>;
}

async function toolsServer(initial: ToolsServer['tools']): Promise<ToolsServer> {
  const port = await freePort();
  const srv: ToolsServer = { port, toolsHits: 0, tools: initial, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/health') return res.end(JSON.stringify({ ok: true, frame: 1 }));
    if (path === '/tools') {
      srv.toolsHits++;
      const t = typeof srv.tools === 'function' ? srv.tools() : srv.tools;
      // answer a little later, so concurrent callers overlap
      setTimeout(() => {
        res.statusCode = t.status;
        res.end(typeof t.body === 'string' ? t.body : JSON.stringify(t.body));
      }, 30);
      return;
    }
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  srv.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return srv;
}

const manifestWith = (tool: string) => ({ game: { name: 'G' }, toolsets: [{ name: 'play', tools: [{ name: tool }] }] });

describe('ManifestCache', () => {
  let srv: ToolsServer;
  let client: GameClient;
  let home: string;
  afterEach(async () => {
    client?.close();
    await srv?.close();
    if (home) removeDir(home);
  });

  test('concurrent gets share one fetch; later gets hit the cache', async () => {
    srv = await toolsServer({ status: 200, body: manifestWith('drop') });
    client = new GameClient(srv.port);
    const cache = new ManifestCache();
    const [a, b, c] = await Promise.all([cache.get(client), cache.get(client), cache.get(client)]);
    expect(srv.toolsHits).toBe(1);
    expect(a).toBe(b);
    expect(b).toBe(c);
    expect(a.source).toBe('game');
    expect(findTool(a, 'drop')).toBeDefined();
    await cache.get(client);
    expect(srv.toolsHits).toBe(1);
  });

  test('invalidate refetches (a call_tool miss sees a newly added tool)', async () => {
    let tool = 'drop';
    srv = await toolsServer(() => ({ status: 200, body: manifestWith(tool) }));
    client = new GameClient(srv.port);
    const cache = new ManifestCache();
    expect(findTool(await cache.get(client), 'spin')).toBeUndefined();
    tool = 'spin';
    expect(findTool(await cache.get(client), 'spin')).toBeUndefined(); // still cached
    cache.invalidate(srv.port);
    expect(findTool(await cache.get(client), 'spin')).toBeDefined();
    expect(srv.toolsHits).toBe(2);
  });

  test('a proven restart (lower frame, asked after a higher one arrived) drops the cache; a late reply does not', async () => {
    srv = await toolsServer({ status: 200, body: manifestWith('drop') });
    client = new GameClient(srv.port);
    const cache = new ManifestCache();
    const at = (frame: number, sentAt: number, receivedAt: number) => cache.restarts.note(srv.port, { frame, sentAt, receivedAt });
    await cache.get(client);
    expect(at(100, 1, 2)).toBe(false);
    expect(at(150, 3, 4)).toBe(false);
    expect(at(120, 2.5, 5)).toBe(false); // asked before 150 arrived: merely slower
    await cache.get(client);
    expect(srv.toolsHits).toBe(1);
    expect(cache.restarts.highest(srv.port)).toBe(150);
    expect(at(3, 6, 7)).toBe(true);
    expect(cache.restarts.highest(srv.port)).toBe(3);
    expect(cache.settled(srv.port)).toBeUndefined();
    await cache.get(client);
    expect(srv.toolsHits).toBe(2);
    expect(at(140, 5.5, 8)).toBe(false); // asked before the restart was seen: maybe the old process
    expect(cache.restarts.generation(srv.port)).toBe(0);
  });

  test('a registry pid change drops the cache; the same pid does not', async () => {
    srv = await toolsServer({ status: 200, body: manifestWith('drop') });
    client = new GameClient(srv.port);
    const cache = new ManifestCache();
    cache.restarts.notePid(srv.port, 1000);
    await cache.get(client);
    expect(cache.restarts.notePid(srv.port, 1000)).toBe(false);
    await cache.get(client);
    expect(srv.toolsHits).toBe(1);
    expect(cache.restarts.notePid(srv.port, 2000)).toBe(true);
    expect(cache.restarts.generation(srv.port)).not.toBe(0);
    await cache.get(client);
    expect(srv.toolsHits).toBe(2);
  });

  test('404 on /tools → fallback manifest with a notice (live-no-manifest)', async () => {
    srv = await toolsServer({ status: 404, body: 'not found' });
    client = new GameClient(srv.port);
    const cache = new ManifestCache();
    const m = await cache.get(client);
    expect(m.source).toBe('fallback');
    expect(toolsetNames(m)).toEqual(['bridge']);
    expect(m.notice).toMatch(/publishes no command list/);
    await cache.get(client);
    expect(srv.toolsHits).toBe(1); // a 404 is an answer: cached like any manifest
  });

  test('--manifest FILE is used when the game serves no /tools, not when it does', async () => {
    home = tempHome();
    const file = join(home, 'manifest.json');
    writeFileSync(file, JSON.stringify({ game: { name: 'From File' }, toolsets: { play: { tools: [{ name: 'from_file' }] } } }));
    let serve = false;
    srv = await toolsServer(() => (serve ? { status: 200, body: manifestWith('from_game') } : { status: 404, body: '' }));
    client = new GameClient(srv.port);
    const cache = new ManifestCache();
    const m = await cache.get(client, { manifestPath: file });
    expect(m.source).toBe('file');
    expect(m.game.name).toBe('From File');
    expect(findTool(m, 'from_file')).toBeDefined();
    expect(toolsetNames(m)).toEqual(['play', 'bridge']);
    serve = true;
    cache.invalidate(srv.port);
    const g = await cache.get(client, { manifestPath: file });
    expect(g.source).toBe('game');
    expect(findTool(g, 'from_game')).toBeDefined();
  });

  test('a broken --manifest file gives the fallback with the reason, and is read again next time', async () => {
    home = tempHome();
    const file = join(home, 'manifest.json');
    writeFileSync(file, '{not json');
    srv = await toolsServer({ status: 404, body: '' });
    client = new GameClient(srv.port);
    const cache = new ManifestCache();
    const m = await cache.get(client, { manifestPath: file });
    expect(m.source).toBe('fallback');
    expect(m.warnings.join(' ')).toMatch(/not valid JSON/);
    writeFileSync(file, JSON.stringify(manifestWith('fixed')));
    const m2 = await cache.get(client, { manifestPath: file });
    expect(m2.source).toBe('file');
    expect(findTool(m2, 'fixed')).toBeDefined();
  });

  test('a /tools that fails (HTTP 500) gives an uncached fallback with a warning', async () => {
    let ok = false;
    srv = await toolsServer(() => (ok ? { status: 200, body: manifestWith('drop') } : { status: 500, body: '{"error":"boom"}' }));
    client = new GameClient(srv.port);
    const cache = new ManifestCache();
    const m = await cache.get(client);
    expect(m.source).toBe('fallback');
    expect(m.warnings.join(' ')).toMatch(/HTTP 500/);
    ok = true;
    expect((await cache.get(client)).source).toBe('game');
  });

  test('no game on the port → GameOffline, nothing cached', async () => {
    const port = await freePort();
    client = new GameClient(port, { timeoutMs: 1000 });
    const cache = new ManifestCache();
    await expect(cache.get(client)).rejects.toMatchObject({ kind: 'GameOffline' });
    expect(cache.settled(port)).toBeUndefined();
  });
});

// The Python contract game, when the fixture exists: real manifests of several shapes.
const pyTest = existsSync(PY_GAME) ? describe : describe.skip;
pyTest('ManifestCache against the Python contract game', () => {
  const reaper = new Reaper();
  afterAll(() => reaper.reap());

  test.each(['array', 'map', 'bare', 'argsmap', 'params', 'arguments'])('manifest shape %s normalises to tools', async (shape) => {
    const port = await freePort();
    await startPyGame(reaper, port, ['--manifest-shape', shape]);
    const client = new GameClient(port);
    try {
      const m = await new ManifestCache().get(client);
      expect(m.source).toBe('game');
      expect(toolsetNames(m)).toContain('bridge');
      expect(toolsetNames(m)).toEqual(['play', 'tuning', 'bridge']);
      expect(play(m).tools.map((t) => t.name)).toEqual(['drop', 'add', 'noop', 'echo', 'close']);
      expect(findTool(m, 'noop')!.readOnly).toBe(true);
      const g = findTool(m, 'set_gravity')!;
      expect(g.args.map((a) => a.name)).toEqual(['g', 'on']);
      if (shape !== 'bare') expect(g.args[1].type).toBe('boolean');
      if (shape !== 'bare' && shape !== 'argsmap') {
        // defaults arrive as strings; they end up in the description, never as a schema default
        expect(toolInputSchema(g).properties.on).toEqual({ type: 'boolean', description: 'enabled. Default: true.' });
      }
      expect(m.warnings).toEqual([]);
    } finally {
      client.close();
    }
  });

  test('shape malformed: the bad tools are dropped with warnings, the good ones kept', async () => {
    const port = await freePort();
    await startPyGame(reaper, port, ['--manifest-shape', 'malformed']);
    const client = new GameClient(port);
    try {
      const m = await new ManifestCache().get(client);
      expect(m.source).toBe('game');
      expect(play(m).tools.map((t) => t.name)).toEqual(['drop', 'add', 'noop', 'echo', 'close']);
      expect(m.warnings.length).toBe(4);
    } finally {
      client.close();
    }
  });

  test('shape none → fallback (no command list)', async () => {
    const port = await freePort();
    await startPyGame(reaper, port, ['--manifest-shape', 'none']);
    const client = new GameClient(port);
    try {
      const m = await new ManifestCache().get(client);
      expect(m.source).toBe('fallback');
      expect(m.notice).toMatch(/no command list/);
    } finally {
      client.close();
    }
  });
});
