/**
 * The game kit in-process, over real HTTP on an OS-assigned port: the part 1 contract, the
 * command queue applied on the tick, and the part 2 registry entry. Process-level behaviour
 * (signals, exit codes) is covered through the example game in example-game.test.ts.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import {
  createGameSurface,
  CommandArgs,
  ArgError,
  type GameSurface,
  type GameSurfaceOptions,
} from '../kits/js/index.js';
import { removeDir, tempHome } from './helpers/procs.js';

const homes: string[] = [];
const surfaces: GameSurface[] = [];

afterEach(async () => {
  await Promise.all(surfaces.splice(0).map((s) => s.close()));
  homes.splice(0).forEach(removeDir);
});

function home(): string {
  const h = tempHome('gb-kit-');
  homes.push(h);
  return h;
}

interface Harness {
  surface: GameSurface;
  applied: string[];
  logs: string[];
  closes: string[];
  get: (path: string) => Promise<{ status: number; body: any }>;
}

async function start(extra: Partial<GameSurfaceOptions> = {}): Promise<Harness> {
  const applied: string[] = [];
  const logs: string[] = [];
  const closes: string[] = [];
  let counter = 0;
  const surface = createGameSurface({
    port: 0,
    name: 'Kit Test',
    version: '2.0.0',
    env: { GAME_BRIDGE_HOME: home() },
    handleSignals: false,
    log: (l) => logs.push(l),
    snapshot: () => ({
      ui: { screen: 'GameScreen' },
      game: { counter, applied: [...applied] },
      frame: -1,
      completedCommandId: -1,
    }),
    commands: {
      add: {
        validate: (a) => void a.number('n'),
        apply: (a) => {
          counter += a.number('n');
          applied.push(`add ${a.raw.n}`);
        },
      },
      say: (a) => void applied.push(`say ${a.string('text', '')}`),
      boom: () => {
        throw new Error('kaboom');
      },
      picky: {
        validate: (a) => (a.string('mode', '') === 'ok' ? undefined : 'mode must be ok'),
        apply: () => void applied.push('picky'),
      },
    },
    onClose: (reason) => void closes.push(reason),
    ...extra,
  });
  surfaces.push(surface);
  await surface.listen();
  const get = async (path: string) => {
    const r = await fetch(`http://127.0.0.1:${surface.port}${path}`);
    const text = await r.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON: keep the text */
    }
    return { status: r.status, body };
  };
  return { surface, applied, logs, closes, get };
}

test('the surface owns frame and completedCommandId, which health and state carry', async () => {
  const h = await start();
  expect((await h.get('/health')).body).toEqual({ ok: true, frame: 0 });
  h.surface.tick();
  h.surface.tick();
  expect((await h.get('/health')).body).toEqual({ ok: true, frame: 2 });
  const s = (await h.get('/state')).body;
  expect(s).toMatchObject({ frame: 2, completedCommandId: 0, ui: { screen: 'GameScreen' }, game: { counter: 0 } });
});

test('a command is queued at once and applied on the next tick, then completedCommandId reaches its id', async () => {
  const h = await start();
  const a = (await h.get('/command?cmd=add&n=5')).body;
  const b = (await h.get('/command?cmd=add&n=2')).body;
  expect(a).toEqual({ accepted: true, commandId: 1, frame: 0 });
  expect(b).toMatchObject({ accepted: true, commandId: 2 });
  // Not applied yet: nothing ticked.
  expect((await h.get('/state')).body).toMatchObject({ completedCommandId: 0, game: { counter: 0 } });
  h.surface.tick();
  expect(h.applied).toEqual(['add 5', 'add 2']);
  expect((await h.get('/state')).body).toMatchObject({ frame: 1, completedCommandId: 2, game: { counter: 7 } });
});

test('unknown commands, a missing cmd and failed validation are refused without taking a command id', async () => {
  const h = await start();
  const unknown = (await h.get('/command?cmd=fly')).body;
  expect(unknown).toEqual({
    accepted: false,
    error: "unknown command 'fly'",
    known: ['add', 'say', 'boom', 'picky', 'frames.stall', 'close'],
  });
  expect((await h.get('/command')).body).toMatchObject({ accepted: false, known: expect.arrayContaining(['close']) });
  expect((await h.get('/command?cmd=add&n=lots')).body).toEqual({
    accepted: false,
    error: "argument 'n' must be a number, got 'lots'",
  });
  expect((await h.get('/command?cmd=add')).body).toMatchObject({
    accepted: false,
    error: expect.stringContaining("missing argument 'n'"),
  });
  expect((await h.get('/command?cmd=picky&mode=no')).body).toEqual({ accepted: false, error: 'mode must be ok' });
  expect((await h.get('/command?cmd=picky&mode=ok')).body).toMatchObject({ accepted: true, commandId: 1 });
});

test('a command that throws still completes (the bridge must not wait forever) and is logged', async () => {
  const h = await start();
  const { commandId } = (await h.get('/command?cmd=boom')).body;
  h.surface.tick();
  expect(h.surface.completedCommandId).toBe(commandId);
  expect(h.logs.join('\n')).toMatch(/boom.*kaboom/);
});

test('argument values arrive as the exact strings sent, special characters and unicode included', async () => {
  const h = await start();
  const text = '&=?#%+ /unicode é 🚀';
  const q = new URLSearchParams({ cmd: 'say', text }).toString();
  expect((await h.get(`/command?${q}`)).body.accepted).toBe(true);
  h.surface.tick();
  expect(h.applied).toEqual([`say ${text}`]);
});

test('malformed query strings and odd paths do not break the surface', async () => {
  const h = await start();
  // A broken escape is kept as sent; an escape of invalid UTF-8 decodes to U+FFFD.
  expect((await h.get('/command?cmd=say&text=%ZZ%')).body.accepted).toBe(true);
  expect((await h.get('/command?cmd=say&text=%E0%A4')).body.accepted).toBe(true);
  expect((await h.get('/command?cmd=say&&&=&text')).body.accepted).toBe(true);
  h.surface.tick();
  expect(h.applied).toEqual(['say %ZZ%', 'say \uFFFD', 'say ']);
  expect((await h.get('//health')).status).toBe(404);
  const nope = await h.get('/nope?x=1');
  expect(nope.status).toBe(404);
  expect(nope.body.error).toContain('/nope');
  const post = await fetch(`http://127.0.0.1:${h.surface.port}/command?cmd=say`, { method: 'POST' });
  expect(post.status).toBe(405);
  expect((await h.get('/health')).body.ok).toBe(true);
});

test('a huge argument is refused with a 414 JSON answer while the surface keeps serving', async () => {
  const h = await start({ maxUrlBytes: 4096 });
  const big = await h.get(`/command?cmd=say&text=${'x'.repeat(20000)}`);
  expect(big.status).toBe(414);
  expect(big.body.accepted).toBe(false);
  const fits = await h.get(`/command?cmd=say&text=${'y'.repeat(3000)}`);
  expect(fits.body.accepted).toBe(true);
});

test('/tools and /screenshot answer 404 for a game that gives no manifest and no screenshot', async () => {
  const without = await start();
  expect((await without.get('/tools')).status).toBe(404);
  expect((await without.get('/screenshot')).status).toBe(404);
});

test("/tools serves the game's manifest with game filled in", async () => {
  const h = await start({ manifest: { toolsets: [{ name: 'play', tools: [] }] } });
  const tools = await h.get('/tools');
  expect(tools.status).toBe(200);
  expect(tools.body).toEqual({
    game: { name: 'Kit Test', version: '2.0.0', protocol: 1 },
    toolsets: [{ name: 'play', tools: [] }],
  });
});

test("/screenshot serves the game's PNG", async () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
  const h = await start({ screenshot: () => png });
  const shot = await fetch(`http://127.0.0.1:${h.surface.port}/screenshot`);
  expect(shot.headers.get('content-type')).toBe('image/png');
  expect(Buffer.from(await shot.arrayBuffer())).toEqual(png);
});

test('publishCompletedId: false leaves completedCommandId out of /state', async () => {
  const h = await start({ publishCompletedId: false });
  await h.get('/command?cmd=say&text=a');
  h.surface.tick();
  const s = (await h.get('/state')).body;
  expect(s).not.toHaveProperty('completedCommandId');
  expect(s.frame).toBe(1);
});

test('the built-in close command is applied on the tick and calls onClose with reason "command"', async () => {
  const h = await start();
  const r = (await h.get('/command?cmd=close')).body;
  expect(r).toMatchObject({ accepted: true, commandId: 1 });
  expect(h.closes).toEqual([]);
  h.surface.tick();
  expect(h.surface.completedCommandId).toBe(1);
  await new Promise((res) => setImmediate(res));
  expect(h.closes).toEqual(['command']);
});

test('registry entry is written after the bind and removed by close()', async () => {
  const gbHome = home();
  const surface = createGameSurface({
    port: 0,
    name: 'Reg',
    version: '1.2.3',
    env: { GAME_BRIDGE_HOME: gbHome },
    handleSignals: false,
    snapshot: () => ({}),
  });
  surfaces.push(surface);
  const dir = join(gbHome, 'instances');
  expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  await surface.listen();
  const file = join(dir, `${process.pid}.json`);
  expect(surface.registryFile).toBe(file);
  const entry = JSON.parse(readFileSync(file, 'utf8'));
  expect(entry).toEqual({
    name: 'Reg',
    version: '1.2.3',
    protocol: 1,
    port: surface.port,
    pid: process.pid,
    host: '127.0.0.1',
    started: expect.any(String),
    cwd: process.cwd(),
  });
  expect(new Date(entry.started).toISOString()).toBe(entry.started);
  await surface.close();
  expect(existsSync(file)).toBe(false);
  expect(readdirSync(dir)).toEqual([]);
});

test('GAME_BRIDGE_INSTANCES wins over GAME_BRIDGE_HOME', async () => {
  const gbHome = home();
  const instances = join(home(), 'elsewhere');
  const surface = createGameSurface({
    port: 0,
    name: 'Reg',
    version: '1',
    env: { GAME_BRIDGE_HOME: gbHome, GAME_BRIDGE_INSTANCES: instances },
    handleSignals: false,
    snapshot: () => ({}),
  });
  surfaces.push(surface);
  await surface.listen();
  expect(readdirSync(instances)).toEqual([`${process.pid}.json`]);
  expect(existsSync(join(gbHome, 'instances'))).toBe(false);
});

test('a registry failure costs one log line and nothing else', async () => {
  const gbHome = home();
  writeFileSync(join(gbHome, 'instances'), 'a file where the registry dir should be');
  const h = await start({ env: { GAME_BRIDGE_HOME: gbHome } });
  expect(h.surface.registryFile).toBeNull();
  const problems = h.logs.filter((l) => !l.startsWith('listening on '));
  expect(problems).toHaveLength(1);
  expect(problems[0]).toMatch(/could not write the registry entry .*game keeps running/);
  expect((await h.get('/health')).body.ok).toBe(true);
  await h.surface.close();
});

test('listen on a busy port rejects with a readable message', async () => {
  const blocker = net.createServer();
  await new Promise<void>((r) => blocker.listen({ port: 0, host: '127.0.0.1' }, r));
  const port = (blocker.address() as net.AddressInfo).port;
  const gbHome = home();
  try {
    const surface = createGameSurface({
      port,
      name: 'Busy',
      version: '1',
      env: { GAME_BRIDGE_HOME: gbHome },
      handleSignals: false,
      snapshot: () => ({}),
    });
    await expect(surface.listen()).rejects.toThrow(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
    // Never bound, so never registered.
    expect(existsSync(join(gbHome, 'instances')) ? readdirSync(join(gbHome, 'instances')) : []).toEqual([]);
  } finally {
    await new Promise((r) => blocker.close(r));
  }
});

test('CommandArgs coercions', () => {
  const a = new CommandArgs({ n: '12.5', bad: 'x', t: 'TRUE', f: 'off', j: '{"a":[1]}', empty: '' });
  expect(a.number('n')).toBe(12.5);
  expect(() => a.number('bad')).toThrow(ArgError);
  expect(a.number('missing', 3)).toBe(3);
  expect(a.number('empty', 4)).toBe(4);
  expect(a.boolean('t')).toBe(true);
  expect(a.boolean('f')).toBe(false);
  expect(() => a.boolean('n')).toThrow(/true or false/);
  expect(a.boolean('missing', true)).toBe(true);
  expect(a.json('j')).toEqual({ a: [1] });
  expect(() => a.json('bad')).toThrow(/JSON/);
  expect(a.string('empty')).toBe('');
  expect(() => a.string('missing')).toThrow(/missing argument 'missing'/);
  expect(a.has('t')).toBe(true);
  expect(a.has('toString')).toBe(false);
});

describe('a newcomer starting the kit by hand', () => {
  test('a port that is not a port (argv[2] never given) is refused with what to pass, before any socket', () => {
    for (const port of [Number(undefined), -1, 70000, 7820.5]) {
      expect(() =>
        createGameSurface({ port, name: 'Tiny', version: '0.1.0', snapshot: () => ({}), commands: {} }),
      ).toThrow(
        /^createGameSurface: port must be an integer 0-65535 \(0 = any free port\), got .*\. Pass the debug port, e\.g\. `node my-game\.mjs 7820`\.$/,
      );
    }
  });

  test('listening is announced with the bound port, name and version', async () => {
    const h = await start();
    expect(h.logs).toContain(`listening on 127.0.0.1:${h.surface.port} (Kit Test 2.0.0)`);
  });
});
