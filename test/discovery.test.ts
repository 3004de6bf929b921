/** Discovery (docs/CONTRACT.md reader rules, docs/TOOLS.md list_instances) against real HTTP servers and real files. */
import http from 'node:http';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GameClient } from '../daemon/game/client.js';
import { ManifestCache } from '../daemon/game/cache.js';
import { listInstances } from '../daemon/discovery/list.js';
import { listInstancesAnswer } from '../shared/answers/instances.js';
import { pruneEntry, readRegistry } from '../daemon/discovery/registry.js';
import { scanPorts } from '../daemon/discovery/scan.js';
import { probePort } from '../daemon/game/probe.js';
import { sessionConfigFrom, type SessionConfig } from '../shared/config.js';
import { freePort, freeRange } from './helpers/ports.js';
import { PY_GAME, Reaper, removeDir, startPyGame, tempHome } from './helpers/procs.js';

interface FakeGame {
  port: number;
  frame: number;
  close(): Promise<void>;
}

/** A real HTTP server on `port` speaking the contract (or not, with health404/tools404). */
async function fakeGame(
  port: number,
  o: { name?: string; health404?: boolean; tools404?: boolean; screen?: string } = {},
): Promise<FakeGame> {
  const g: FakeGame = { port, frame: 10, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const json = (status: number, body: unknown) => {
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
    };
    if (path === '/health') return o.health404 ? json(404, { error: 'no' }) : json(200, { ok: true, frame: g.frame });
    if (path === '/state') return json(200, { frame: g.frame, ui: { screen: o.screen ?? 'MenuScreen' }, game: {} });
    if (path === '/tools' && !o.tools404)
      return json(200, {
        game: { name: o.name ?? 'Fake', version: '1.2.3', protocol: 1 },
        toolsets: [{ name: 'play', tools: [{ name: 'drop' }] }],
      });
    json(404, {});
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  g.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return g;
}

function writeEntry(dir: string, pid: number, port: number, extra: Record<string, unknown> = {}): string {
  const file = join(dir, `${pid}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      name: 'FromRegistry',
      version: '0.0.1',
      protocol: 1,
      port,
      pid,
      host: '127.0.0.1',
      started: '2024-01-01T00:00:00Z',
      cwd: '/tmp/game',
      ...extra,
    }),
  );
  return file;
}

function config(home: string, scanRange: string, extra: Record<string, unknown> = {}): SessionConfig {
  return sessionConfigFrom(
    { 'scan-range': scanRange, 'registry-dir': join(home, 'instances'), timeout: 2000, ...extra },
    { GAME_BRIDGE_HOME: home },
    home,
  );
}

describe('readRegistry', () => {
  let home: string;
  beforeEach(() => {
    home = tempHome();
  });
  afterEach(() => removeDir(home));

  test('a missing dir is an empty registry', async () => {
    expect(await readRegistry(join(home, 'nope'))).toEqual({ entries: [], skipped: 0, skippedFiles: [] });
  });

  test('only good registry entries are read: malformed, huge, odd-name, dangling-symlink and portless files are skipped and counted', async () => {
    const dir = join(home, 'instances');
    mkdirSync(dir);
    const good = writeEntry(dir, 1111, 7801);
    writeFileSync(join(dir, '2222.json'), '{broken');
    writeFileSync(join(dir, '3333.json'), JSON.stringify({ port: 7802, pad: 'x'.repeat(70 * 1024) }));
    writeFileSync(join(dir, 'notes.txt'), 'hello');
    writeFileSync(join(dir, '4444.json'), JSON.stringify({ name: 'no port' }));
    writeFileSync(join(dir, '5555.json'), JSON.stringify([1, 2]));
    symlinkSync(join(dir, 'gone.json'), join(dir, '6666.json'));
    writeFileSync(join(dir, '7777.json'), JSON.stringify({ port: '7803' })); // pid from the file name
    const r = await readRegistry(dir);
    expect(r.entries.map((e) => [e.port, e.pid])).toEqual([
      [7801, 1111],
      [7803, 7777],
    ]);
    expect(r.entries[0]).toMatchObject({
      file: good,
      name: 'FromRegistry',
      version: '0.0.1',
      cwd: '/tmp/game',
      started: '2024-01-01T00:00:00Z',
    });
    expect(r.skipped).toBe(6);
    expect(r.skippedFiles.map((f) => f.split('/').pop())).toEqual([
      '2222.json',
      '3333.json',
      '4444.json',
      '5555.json',
      '6666.json',
      'notes.txt',
    ]);
  });

  test('pruneEntry deletes only the file it is given', async () => {
    const dir = join(home, 'instances');
    mkdirSync(dir);
    const a = writeEntry(dir, 1, 7801);
    const b = writeEntry(dir, 2, 7802);
    expect(await pruneEntry(a)).toBe(true);
    expect(existsSync(a)).toBe(false);
    expect(existsSync(b)).toBe(true);
    expect(await pruneEntry(a)).toBe(true); // already gone
  });
});

describe('scanPorts', () => {
  const games: FakeGame[] = [];
  afterEach(async () => {
    await Promise.all(games.splice(0).map((g) => g.close()));
  });

  test('classifies a thousand ports: live, notAGame (404 and silent), free', async () => {
    const ports = await freeRange(1000);
    games.push(await fakeGame(ports[3]), await fakeGame(ports[500], { health404: true }));
    const silent = http.createServer(() => undefined); // accepts, never answers
    await new Promise<void>((r) => silent.listen(ports[900], '127.0.0.1', () => r()));
    try {
      const probes = await scanPorts(ports, { timeoutMs: 200 });
      expect(probes.length).toBe(1000);
      expect(probes[3]).toMatchObject({ port: ports[3], kind: 'live', health: { ok: true, frame: 10 } });
      expect(probes[500]).toEqual({ port: ports[500], kind: 'notAGame', detail: 'GET /health returned HTTP 404' });
      expect(probes[900]).toMatchObject({
        port: ports[900],
        kind: 'notAGame',
        detail: expect.stringMatching(/did not answer within/),
      });
      expect(probes.filter((p) => p.kind === 'free').length).toBe(997);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

describe('what counts as a game', () => {
  const servers: http.Server[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      s.close();
    }
  });
  /** A real HTTP server on a free port whose /health answers `health` after `delayMs`. */
  async function healthServer(health: string, delayMs = 0): Promise<number> {
    const port = await freePort();
    const s = http.createServer((req, res) => {
      const body = (req.url ?? '').startsWith('/health') ? health : '{}';
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body), delayMs);
    });
    servers.push(s);
    await new Promise<void>((r) => s.listen(port, '127.0.0.1', () => r()));
    return port;
  }

  test('a /health answering 200 without ok: true is not a game, in a scan and in list_instances', async () => {
    const shapes = ['{}', '{"ok": false, "frame": 3}', '{"ok": "true"}', '{"frame": 3}'];
    const ports = await Promise.all(shapes.map((h) => healthServer(h)));
    const probes = await scanPorts(ports);
    for (const p of probes)
      expect(p).toEqual({ port: p.port, kind: 'notAGame', detail: 'GET /health did not answer {"ok": true}' });
    const home = tempHome();
    try {
      const r = await listInstances({
        config: config(home, ports.join(',')),
        cache: new ManifestCache(),
        clients: (p) => new GameClient(p),
      });
      expect(r.live).toEqual([]);
      expect(r.notAGame.map((n) => n.port).sort()).toEqual([...ports].sort());
    } finally {
      removeDir(home);
    }
  });

  test('a live game is not reported free when the scanner itself stalls past the probe timeout', async () => {
    const port = await healthServer('{"ok": true, "frame": 2}');
    const scanning = scanPorts([port], { timeoutMs: 100 });
    const until = Date.now() + 400;
    while (Date.now() < until); // the event loop stalls (a loaded machine): the probe's timer is due before its connect is seen
    expect(await scanning).toEqual([
      {
        port,
        kind: 'live',
        health: { ok: true, frame: 2 },
        sentAt: expect.any(Number),
        receivedAt: expect.any(Number),
      },
    ]);
  });

  test('one probe whose timer fires late (the event loop stalled) sees the connect that came meanwhile: not free', async () => {
    const port = await healthServer('{"ok": true, "frame": 3}');
    const probing = probePort(port, 100);
    const until = Date.now() + 400;
    while (Date.now() < until); // longer than the timeout: timer and connect are both due when the loop wakes
    const probe = await probing;
    expect(probe.kind).not.toBe('free'); // live, or accepted-but-late (which a scan asks again)
  });

  test('a busy game answering /health after 600 ms is live: a probe that timed out is tried once more, longer', async () => {
    const port = await healthServer('{"ok": true, "frame": 1}', 600);
    const [probe] = await scanPorts([port]);
    expect(probe).toMatchObject({ port, kind: 'live', health: { ok: true, frame: 1 } });
  });
});

describe('listInstances', () => {
  let home: string;
  let regDir: string;
  const games: FakeGame[] = [];
  const clients = new Map<number, GameClient>();
  const clientFor = (port: number) => {
    let c = clients.get(port);
    if (!c) clients.set(port, (c = new GameClient(port, { timeoutMs: 2000 })));
    return c;
  };
  beforeEach(() => {
    home = tempHome();
    regDir = join(home, 'instances');
    mkdirSync(regDir);
  });
  afterEach(async () => {
    for (const c of clients.values()) c.close();
    clients.clear();
    await Promise.all(games.splice(0).map((g) => g.close()));
    removeDir(home);
  });

  test('merges registry and scan: both / scan / registry, stale, notAGame, free, skipped files', async () => {
    const range = await freeRange(6);
    const outside = await freePort();
    const deadPort = await freePort();
    const [both, scanOnly, not] = [range[0], range[1], range[2]];
    games.push(
      await fakeGame(both, { name: 'Both', screen: 'GameScreen' }),
      await fakeGame(scanOnly, { tools404: true }),
      await fakeGame(not, { health404: true }),
    );
    games.push(await fakeGame(outside, { name: 'Outside' }));
    writeEntry(regDir, 900001, both, { name: 'StaleName', version: '0.0.0' });
    writeEntry(regDir, 900002, outside);
    const staleFile = writeEntry(regDir, 900003, deadPort);
    writeFileSync(join(regDir, '900004.json'), 'not json');

    const cache = new ManifestCache();
    const r = await listInstances({
      config: config(home, `${range[0]}-${range[5]}`),
      cache,
      clients: clientFor,
      launched: (p) => (p === both ? { pid: 1, owner: 'you' } : undefined),
    });

    expect(r.registryDir).toBe(regDir);
    expect(r.live.map((l) => [l.port, l.discovery])).toEqual(
      [
        [both, 'both'],
        [scanOnly, 'scan'],
        [outside, 'registry'],
      ].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
    const b = r.live.find((l) => l.port === both)!;
    expect(b).toMatchObject({
      status: 'live',
      game: 'Both', // the live game wins over the registry entry
      version: '1.2.3',
      protocol: 1,
      manifest: 'game',
      pid: 900001, // the entry supplies what the wire cannot
      cwd: '/tmp/game',
      screen: 'GameScreen',
      frame: 10,
      toolsets: ['play', 'bridge'],
      launchedByThisBridge: true,
      owner: 'you',
    });
    const s = r.live.find((l) => l.port === scanOnly)!;
    expect(s).toMatchObject({
      status: 'live-no-manifest',
      manifest: 'fallback',
      toolsets: ['bridge'],
      pid: null,
      launchedByThisBridge: false,
      game: null,
    });
    expect(s.owner).toBeUndefined();
    expect(r.stale).toEqual([{ port: deadPort, pid: 900003, file: staleFile }]);
    expect(r.notAGame).toEqual([{ port: not, detail: 'GET /health returned HTTP 404' }]);
    expect(r.free).toEqual(range.slice(3));
    expect(r.skippedRegistryFiles).toBe(1);
    expect(existsSync(staleFile)).toBe(true); // never deleted unless asked
    expect(cache.restarts.highest(both)).toBe(10);
  });

  test('prune: true deletes only the stale entries whose port is dead', async () => {
    const [livePort, deadPort] = [await freePort(), await freePort()];
    games.push(await fakeGame(livePort));
    const liveFile = writeEntry(regDir, 900010, livePort);
    const staleFile = writeEntry(regDir, 900011, deadPort);
    const r = await listInstances({
      config: config(home, '1', { scan: false }),
      cache: new ManifestCache(),
      clients: clientFor,
      prune: true,
    });
    expect(r.stale).toEqual([{ port: deadPort, pid: 900011, file: staleFile, pruned: true }]);
    expect(existsSync(staleFile)).toBe(false);
    expect(existsSync(liveFile)).toBe(true);
    expect(r.live.map((l) => [l.port, l.discovery])).toEqual([[livePort, 'registry']]);
    expect(r.free).toEqual([]); // scan is off
  });

  /** Three ports: a game that answers on the first, a dead registry entry naming the second. */
  async function liveAndDeadEntry(): Promise<number[]> {
    const range = await freeRange(3);
    games.push(await fakeGame(range[0]));
    writeEntry(regDir, 900020, range[1]); // dead
    return range;
  }

  test('--no-registry finds games by the scan alone and reports no stale entry', async () => {
    const range = await liveAndDeadEntry();
    const noReg = await listInstances({
      config: config(home, `${range[0]}-${range[2]}`, { registry: false }),
      cache: new ManifestCache(),
      clients: clientFor,
    });
    expect(noReg.live.map((l) => [l.port, l.discovery])).toEqual([[range[0], 'scan']]);
    expect(noReg.stale).toEqual([]);
    expect(noReg.free).toEqual([range[1], range[2]]);
  });

  test('--no-scan reports registry instances only', async () => {
    const range = await liveAndDeadEntry();
    const noScan = await listInstances({
      config: config(home, `${range[0]}-${range[2]}`, { scan: false }),
      cache: new ManifestCache(),
      clients: clientFor,
    });
    expect(noScan.live).toEqual([]);
    expect(noScan.stale.map((s) => s.pid)).toEqual([900020]);
  });

  test('a registry pid change and a frame going backwards drop the port cache', async () => {
    const port = await freePort();
    const g = await fakeGame(port);
    games.push(g);
    const first = writeEntry(regDir, 900030, port);
    const cache = new ManifestCache();
    const opts = { config: config(home, String(port)), cache, clients: clientFor };
    let restarts = 0;
    cache.restarts.onRestart(() => restarts++);
    await listInstances(opts);
    expect(cache.restarts.generation(port)).toBe(0);
    removeDir(first);
    writeEntry(regDir, 900031, port);
    await listInstances(opts);
    const afterPid = cache.restarts.generation(port);
    expect(afterPid).not.toBe(0); // another pid: another process, for every call on the port
    expect(restarts).toBe(1);
    g.frame = 50;
    await listInstances(opts);
    g.frame = 2;
    const r = await listInstances(opts);
    expect(restarts).toBe(2); // a lower frame after a complete higher one: the manifest goes
    expect(cache.restarts.generation(port)).toBe(afterPid); // but only identity changes the generation
    expect(r.live[0].frame).toBe(2);
  });

  test('a game whose /state fails is still reported', async () => {
    const port = await freePort();
    const server = http.createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/health') return res.end(JSON.stringify({ ok: true, frame: 7 }));
      res.statusCode = 500;
      res.end('oops');
    });
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
    try {
      const r = await listInstances({
        config: config(home, String(port)),
        cache: new ManifestCache(),
        clients: clientFor,
      });
      expect(r.live).toHaveLength(1);
      expect(r.live[0]).toMatchObject({ port, status: 'live-no-manifest', frame: 7, screen: null });
      expect(r.live[0].warnings?.join(' ')).toMatch(/\/state/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test("a game found by the scan alone (no name, pid or cwd) fits list_instances' declared answer", async () => {
    const game = await fakeGame(await freePort(), { tools404: true });
    try {
      const r = await listInstances({
        config: config(home, String(game.port)),
        cache: new ManifestCache(),
        clients: clientFor,
      });
      expect(r.live).toHaveLength(1);
      const parsed = listInstancesAnswer.safeParse({ exited: [], ...r });
      expect(parsed.error?.issues ?? []).toEqual([]);
    } finally {
      await game.close();
    }
  });
});

const pyTest = existsSync(PY_GAME) ? describe : describe.skip;
pyTest('listInstances with the Python contract game', () => {
  const reaper = new Reaper();
  let home: string;
  afterAll(async () => {
    await reaper.reap();
    removeDir(home);
  });

  test('a self-registered game is found by both sources, with its pid from the registry', async () => {
    home = tempHome();
    const port = await freePort();
    const child = await startPyGame(reaper, port, ['--registry'], {
      GAME_BRIDGE_HOME: home,
      GAME_BRIDGE_INSTANCES: join(home, 'instances'),
    });
    const cfg = config(home, String(port));
    const r = await listInstances({ config: cfg, cache: new ManifestCache(), clients: (p) => new GameClient(p) });
    expect(r.live).toHaveLength(1);
    expect(r.live[0]).toMatchObject({ port, discovery: 'both', status: 'live', manifest: 'game', pid: child.pid });
    expect(r.live[0].toolsets).toContain('bridge');
  });
});
