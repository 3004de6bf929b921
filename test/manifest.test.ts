/** The per-port manifest cache (docs/TOOLS.md) against real HTTP servers and the Python game (normalisation itself: test/unit). */
import http from 'node:http';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GameClient } from '../daemon/game/client.js';
import { ManifestCache } from '../daemon/game/cache.js';
import { findTool, toolInputSchema, type Manifest } from '../daemon/game/manifest.js';
import { withBridge } from '../daemon/bridge/index.js';
import { freePort } from './helpers/ports.js';
import { PY_GAME, Reaper, removeDir, startPyGame, tempHome } from './helpers/procs.js';

/** The toolsets an agent is shown of a cached manifest: the game's own, then the bridge toolset. */
const toolsetNames = (m: Manifest) => withBridge(m).toolsets.map((t) => t.name);
const play = (m: Manifest) => m.toolsets.find((t) => t.name === 'play')!;

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

  test('gets share one fetch, concurrent or later', async () => {
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

  test('only a proven restart (a lower frame asked after a higher one arrived) drops the cache, not a late reply', async () => {
    srv = await toolsServer({ status: 200, body: manifestWith('drop') });
    client = new GameClient(srv.port);
    const cache = new ManifestCache();
    const at = (frame: number, sentAt: number, receivedAt: number) =>
      cache.restarts.note(srv.port, { frame, sentAt, receivedAt });
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

  test('only a change of the registry pid drops the cache', async () => {
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
    writeFileSync(
      file,
      JSON.stringify({ game: { name: 'From File' }, toolsets: { play: { tools: [{ name: 'from_file' }] } } }),
    );
    let serve = false;
    srv = await toolsServer(() =>
      serve ? { status: 200, body: manifestWith('from_game') } : { status: 404, body: '' },
    );
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

  test('a broken --manifest file gives the fallback with the reason', async () => {
    home = tempHome();
    const file = join(home, 'manifest.json');
    writeFileSync(file, '{not json');
    srv = await toolsServer({ status: 404, body: '' });
    client = new GameClient(srv.port);
    const m = await new ManifestCache().get(client, { manifestPath: file });
    expect(m.source).toBe('fallback');
    expect(m.warnings.join(' ')).toMatch(/not valid JSON/);
  });

  test('a broken --manifest file is read again next time', async () => {
    home = tempHome();
    const file = join(home, 'manifest.json');
    writeFileSync(file, '{not json');
    srv = await toolsServer({ status: 404, body: '' });
    client = new GameClient(srv.port);
    const cache = new ManifestCache();
    expect((await cache.get(client, { manifestPath: file })).source).toBe('fallback');
    writeFileSync(file, JSON.stringify(manifestWith('fixed')));
    const m2 = await cache.get(client, { manifestPath: file });
    expect(m2.source).toBe('file');
    expect(findTool(m2, 'fixed')).toBeDefined();
  });

  test('a /tools that fails (HTTP 500) gives an uncached fallback with a warning', async () => {
    let ok = false;
    srv = await toolsServer(() =>
      ok ? { status: 200, body: manifestWith('drop') } : { status: 500, body: '{"error":"boom"}' },
    );
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

  test.each(['array', 'map', 'bare', 'argsmap', 'params', 'arguments'])(
    'manifest shape %s normalises to tools',
    async (shape) => {
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
    },
  );

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
