/**
 * The real compiled games as processes: Crate Stack (built on the game kit) and the Python
 * contract game. Covers the contract over HTTP, the registry entry's life, exit paths, and
 * every misbehaviour flag the other suites rely on.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { freePort } from './helpers/ports.js';
import {
  EXAMPLE_GAME,
  PY_GAME,
  Reaper,
  alive,
  collectOutput,
  exitCode,
  healthOk,
  pythonExe,
  removeDir,
  startExampleGame,
  startPyGame,
  tempHome,
  waitFor,
  waitGone,
} from './helpers/procs.js';

const reaper = new Reaper();
const homes: string[] = [];
afterEach(async () => {
  await reaper.reap();
  homes.splice(0).forEach(removeDir);
});

function home(): string {
  const h = tempHome('gb-game-');
  homes.push(h);
  return h;
}

/** A reaper and a home that last for a describe's tests, where one game serves several. */
function sharedGame(): { reaper: Reaper; home: () => string } {
  const own = { reaper: new Reaper(), dir: '' };
  afterAll(async () => {
    await own.reaper.reap();
    if (own.dir) removeDir(own.dir);
  });
  return { reaper: own.reaper, home: () => (own.dir ||= tempHome('gb-game-')) };
}

const base = (port: number) => `http://127.0.0.1:${port}`;
async function getJson(port: number, path: string): Promise<any> {
  return (await fetch(base(port) + path)).json();
}
async function command(port: number, cmd: string, args: Record<string, string> = {}): Promise<any> {
  return getJson(port, `/command?${new URLSearchParams({ cmd, ...args })}`);
}
/** Sends a command and waits until the game reports it applied; returns that state. */
async function applied(port: number, cmd: string, args: Record<string, string> = {}): Promise<any> {
  const r = await command(port, cmd, args);
  expect(r).toMatchObject({ accepted: true });
  return waitFor(`${cmd} applied`, async () => {
    const s = await getJson(port, '/state');
    return s.completedCommandId >= r.commandId ? s : null;
  });
}
const registryFiles = (h: string) => (existsSync(join(h, 'instances')) ? readdirSync(join(h, 'instances')) : []);

describe('Crate Stack', () => {
  test('plays menu → start → drop, the crate falling, settling and scoring, with commands completing in order', async () => {
    const port = await freePort();
    await startExampleGame(reaper, port, ['--seed', 'abc'], { GAME_BRIDGE_HOME: home() });
    const first = await getJson(port, '/state');
    expect(first).toMatchObject({
      simFrame: 0,
      paused: false,
      ui: { screen: 'MenuScreen' },
      completedCommandId: 0,
      game: { score: 0, crates: [], seed: 'abc' },
    });
    expect(first.ui.elements).toContainEqual(expect.objectContaining({ type: 'button', id: 'start' }));

    const started = await applied(port, 'start');
    expect(started.ui.screen).toBe('GameScreen');
    const drop = await command(port, 'drop', { x: '40' });
    expect(drop).toEqual({ accepted: true, commandId: 2, frame: expect.any(Number) });
    const settled = await waitFor('crate settled', async () => {
      const s = await getJson(port, '/state');
      return s.game.crates[0]?.settled ? s : null;
    });
    expect(settled.completedCommandId).toBeGreaterThanOrEqual(2);
    expect(settled.game.crates[0]).toMatchObject({ id: 1, x: 40, y: 0, settled: true });
    expect(settled.game.score).toBeGreaterThan(0);
    expect(settled.game.received).toMatchObject({ start: 1, drop: 1 });
    expect(settled.simFrame).toBeGreaterThan(0);
    expect(settled.frame).toBeGreaterThan(first.frame);
    // A crate dropped with settle=false is at rest in the frame that applies it.
    const placed = await applied(port, 'drop', { x: '40', settle: 'false' });
    expect(placed.game.crates[1]).toMatchObject({ id: 2, settled: true });
    expect(placed.events).toEqual(
      expect.arrayContaining([{ m: 'drop:crate#2' }, 'settle:crate#2', expect.stringMatching(/^score:\+\d+$/)]),
    );
  });

  describe('one game played through its screens', () => {
    const shared = sharedGame();
    let port = 0;
    beforeAll(async () => {
      port = await freePort();
      await startExampleGame(shared.reaper, port, [], { GAME_BRIDGE_HOME: shared.home() });
      await applied(port, 'start');
    }, 60000);

    test('pause freezes simFrame while frame grows', async () => {
      const paused = await applied(port, 'pause');
      expect(paused).toMatchObject({ paused: true, ui: { screen: 'PausedScreen' } });
      const later = await waitFor('frames pass', async () => {
        const s = await getJson(port, '/state');
        return s.frame >= paused.frame + 5 ? s : null;
      });
      expect(later.simFrame).toBe(paused.simFrame);
    });

    test('resume, a topple, restart and menu lead through GameOverScreen back to MenuScreen', async () => {
      expect((await applied(port, 'resume')).ui.screen).toBe('GameScreen');
      // Two crates on the floor far apart, then one whose centre overhangs the first: it topples.
      await applied(port, 'drop', { x: '20', settle: 'false' });
      const over = await applied(port, 'drop', { x: '27', settle: 'false' });
      expect(over).toMatchObject({ ui: { screen: 'GameOverScreen' }, game: { over: 'topple' } });
      expect((await applied(port, 'restart')).game).toMatchObject({ score: 0, crates: [] });
      expect((await applied(port, 'menu')).ui.screen).toBe('MenuScreen');
    });
  });

  test('commands act exactly as declared: bad ones refused, bump once per command, peek changing nothing', async () => {
    const port = await freePort();
    await startExampleGame(reaper, port, [], { GAME_BRIDGE_HOME: home() });
    const unknown = await command(port, 'fly');
    expect(unknown).toMatchObject({ accepted: false, error: "unknown command 'fly'" });
    expect(unknown.known).toEqual(
      expect.arrayContaining([
        'start',
        'drop',
        'pause',
        'resume',
        'restart',
        'set_seed',
        'menu',
        'bump',
        'peek',
        'freeze',
        'close',
      ]),
    );
    expect(await command(port, 'drop', { x: 'left' })).toMatchObject({
      accepted: false,
      error: expect.stringContaining("'x'"),
    });
    expect(await command(port, 'drop')).toMatchObject({ accepted: false });

    const tag = '&=?#%+ /unicode é 🚀';
    for (let i = 0; i < 3; i++) await command(port, 'bump', { tag });
    const s = await applied(port, 'bump', { tag: 'other' });
    expect(s.game.bumps).toEqual({ [tag]: 3, other: 1 });
    expect(s.game.received.bump).toBe(4);

    const before = await getJson(port, '/state');
    const after = await applied(port, 'peek');
    expect(after.game.received.peek).toBe(1);
    const strip = (st: any) => ({ ...st.game, received: undefined });
    expect(strip(after)).toEqual(strip(before));
    expect(after.ui.screen).toBe(before.ui.screen);
  });

  test('the crates follow the seed, so set_seed changes them', async () => {
    const port = await freePort();
    await startExampleGame(reaper, port, ['--seed', 'one'], { GAME_BRIDGE_HOME: home() });
    const kinds = async () => {
      await applied(port, 'restart');
      for (let i = 0; i < 6; i++) await command(port, 'drop', { x: String(10 + i * 15), settle: 'false' });
      const s = await applied(port, 'peek');
      return s.game.crates.map((c: any) => c.kind);
    };
    const a = await kinds();
    expect(a).toHaveLength(6);
    expect(await kinds()).toEqual(a);
    const seeded = await applied(port, 'set_seed', { seed: 'two' });
    expect(seeded.game.seed).toBe('two');
    const b = await kinds();
    expect(b).not.toEqual(a);
    expect(await kinds()).toEqual(b);
  });

  test('serves its manifest with play and debug toolsets, marking peek read-only and bump not', async () => {
    const port = await freePort();
    await startExampleGame(reaper, port, ['--name', 'Stack Two', '--version-tag', '9.9.9'], {
      GAME_BRIDGE_HOME: home(),
    });
    const m = await getJson(port, '/tools');
    expect(m.game).toEqual({
      name: 'Stack Two',
      version: '9.9.9',
      protocol: 1,
      capabilities: ['input', 'pointer', 'touch', 'axis', 'text', 'clock', 'ui', 'world'],
      inputs: ['left', 'right'],
      axes: [{ name: 'steer', min: -1, max: 1 }],
      pointer: true,
      touch: true,
      text: true,
    });
    expect(m.toolsets.map((t: any) => t.name)).toEqual(['play', 'debug']);
    const tools = Object.fromEntries(m.toolsets.flatMap((t: any) => t.tools).map((t: any) => [t.name, t]));
    expect(Object.keys(tools).sort()).toEqual([
      'bump',
      'close',
      'drop',
      'drop_here',
      'freeze',
      'menu',
      'pause',
      'peek',
      'restart',
      'resume',
      'set_seed',
      'start',
    ]);
    expect(tools.drop.args).toEqual([
      expect.objectContaining({ name: 'x', type: 'number', required: true }),
      expect.objectContaining({ name: 'settle', type: 'boolean', default: 'true' }),
    ]);
    expect(tools.peek.readOnly).toBe(true);
    expect(tools.bump.readOnly).toBe(false);
    expect((await fetch(`${base(port)}/screenshot`)).status).toBe(404);
    expect((await fetch(`${base(port)}/nothing`)).status).toBe(404);
  });

  describe('the registry entry of a game closed by command', () => {
    let port = 0;
    let child: Awaited<ReturnType<typeof startExampleGame>>;
    let out: ReturnType<typeof collectOutput>;
    let file = '';
    const shared = sharedGame();
    beforeAll(async () => {
      port = await freePort();
      const h = shared.home();
      child = await startExampleGame(shared.reaper, port, ['--name', 'Reg Stack'], { GAME_BRIDGE_HOME: h });
      out = collectOutput(child);
      file = join(h, 'instances', `${child.pid}.json`);
    }, 60000);

    test('appears after the bind', async () => {
      const entry = await waitFor('registry entry', () => existsSync(file) && JSON.parse(readFileSync(file, 'utf8')));
      expect(entry).toMatchObject({
        name: 'Reg Stack',
        version: '1.0.0',
        protocol: 1,
        port,
        pid: child.pid,
        host: '127.0.0.1',
        cwd: process.cwd(),
      });
    });

    test('is removed by close, which exits 0', async () => {
      const code = exitCode(child);
      expect(await command(port, 'close')).toMatchObject({ accepted: true });
      expect(await code).toBe(0);
      expect(existsSync(file)).toBe(false);
      expect(out.text).toContain('close requested (command)');
    });
  });

  test('SIGTERM and SIGINT exit 0 through the same path and remove the entry', async () => {
    for (const sig of ['SIGTERM', 'SIGINT'] as const) {
      const port = await freePort();
      const h = home();
      const child = await startExampleGame(reaper, port, [], { GAME_BRIDGE_HOME: h });
      await waitFor('registry entry', () => registryFiles(h).length === 1);
      const code = exitCode(child);
      child.kill(sig);
      expect(await code).toBe(0);
      expect(registryFiles(h)).toEqual([]);
    }
  });

  test('an unwritable registry costs one stderr line while the game runs on', async () => {
    const port = await freePort();
    const h = home();
    writeFileSync(join(h, 'instances'), 'not a directory');
    const child = await startExampleGame(reaper, port, [], { GAME_BRIDGE_HOME: h });
    // Output written before this listener is buffered by the paused stream, not lost.
    const out = collectOutput(child);
    expect((await applied(port, 'start')).ui.screen).toBe('GameScreen');
    await waitFor('registry warning', () => out.text.includes('could not write the registry entry'));
    expect(out.text.match(/registry/g)).toHaveLength(1);
    const code = exitCode(child);
    await command(port, 'close');
    expect(await code).toBe(0);
  });

  test('a busy port: exit code 1 and a stderr line saying so', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen({ port: 0, host: '127.0.0.1' }, r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const h = home();
      const child = reaper.spawn(process.execPath, [EXAMPLE_GAME, '--port', String(port)], {
        env: { ...process.env, GAME_BRIDGE_HOME: h },
      });
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      expect(await exitCode(child)).toBe(1);
      expect(stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
      expect(registryFiles(h)).toEqual([]);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  test('--crash-at-start prints recognisable lines and exits 3 before binding', async () => {
    const port = await freePort();
    const h = home();
    const child = reaper.spawn(process.execPath, [EXAMPLE_GAME, '--port', String(port), '--crash-at-start'], {
      env: { ...process.env, GAME_BRIDGE_HOME: h },
    });
    const out = collectOutput(child);
    expect(await exitCode(child)).toBe(3);
    expect(out.text).toContain('crate-stack: loading assets...');
    expect(out.text).toContain('crate-stack: fatal: could not open save file');
    expect(await healthOk(port)).toBe(false);
    expect(registryFiles(h)).toEqual([]);
  });

  test('--slow-start binds (and registers) only after the wait', async () => {
    const port = await freePort();
    const h = home();
    const child = reaper.spawn(process.execPath, [EXAMPLE_GAME, '--port', String(port), '--slow-start', '700'], {
      env: { ...process.env, GAME_BRIDGE_HOME: h },
    });
    const out = collectOutput(child);
    await waitFor('slow start announced', () => out.text.includes('slow start'));
    expect(await healthOk(port)).toBe(false);
    expect(registryFiles(h)).toEqual([]);
    await waitFor('game up', () => healthOk(port), 10000);
    expect(registryFiles(h)).toEqual([`${child.pid}.json`]);
    expect(out.text).toContain(`crate-stack: listening on 127.0.0.1:${port}`);
  });

  test('--no-tools answers 404 on /tools', async () => {
    const port = await freePort();
    await startExampleGame(reaper, port, ['--no-tools'], { GAME_BRIDGE_HOME: home() });
    expect((await fetch(`${base(port)}/tools`)).status).toBe(404);
  });

  test('--no-completed-id never publishes completedCommandId, even after a command', async () => {
    const port = await freePort();
    await startExampleGame(reaper, port, ['--no-completed-id'], { GAME_BRIDGE_HOME: home() });
    await command(port, 'start');
    const s = await waitFor('start applied', async () => {
      const st = await getJson(port, '/state');
      return st.game.received.start === 1 ? st : null;
    });
    expect(s).not.toHaveProperty('completedCommandId');
    expect(s.ui.screen).toBe('GameScreen');
  });

  test('--ignore-close makes a game that only SIGKILL ends, ignoring close and SIGTERM', async () => {
    const port = await freePort();
    const child = await startExampleGame(reaper, port, ['--ignore-close'], { GAME_BRIDGE_HOME: home() });
    const out = collectOutput(child);
    const r = await command(port, 'close');
    expect(r.accepted).toBe(true);
    await waitFor('close ignored', () => out.text.includes('close requested (command): ignored'));
    child.kill('SIGTERM');
    await waitFor('SIGTERM ignored', () => out.text.includes('close requested (SIGTERM): ignored'));
    expect(await healthOk(port)).toBe(true);
    const s = await getJson(port, '/state');
    expect(s.completedCommandId).toBeGreaterThanOrEqual(r.commandId);
    child.kill('SIGKILL');
    expect(await waitGone(child.pid!)).toBe(true);
  });

  test('--child spawns a grandchild that lives with the game and goes with a clean close', async () => {
    const port = await freePort();
    const child = await startExampleGame(reaper, port, ['--child'], { GAME_BRIDGE_HOME: home() });
    // Output the child wrote before this listener is buffered by the paused stream, not lost.
    const out = collectOutput(child);
    const pid = Number(await waitFor('child pid line', () => /child pid (\d+)/.exec(out.text)?.[1]));
    reaper.track(pid);
    expect(pid).not.toBe(child.pid);
    expect(alive(pid)).toBe(true);
    const code = exitCode(child);
    await command(port, 'close');
    expect(await code).toBe(0);
    expect(await waitGone(pid)).toBe(true);
  });

  test('freeze blocks the game thread: /health does not answer until it is over', async () => {
    const port = await freePort();
    await startExampleGame(reaper, port, [], { GAME_BRIDGE_HOME: home() });
    const before = await getJson(port, '/health');
    expect(await command(port, 'freeze', { ms: '1500' })).toMatchObject({ accepted: true });
    await waitFor('frozen', async () => {
      try {
        await fetch(`${base(port)}/health`, { signal: AbortSignal.timeout(300) });
        return false;
      } catch {
        return true;
      }
    });
    const after = await waitFor('thawed', async () =>
      (await fetch(`${base(port)}/health`, { signal: AbortSignal.timeout(3000) })).json(),
    );
    expect(after.ok).toBe(true);
    expect(after.frame).toBeGreaterThan(before.frame);
  });
});

describe('Crate Stack in time', () => {
  test('a held right moves the dropper frame by frame, exactly as far as the frames stepped, until released', async () => {
    const port = await freePort();
    await startExampleGame(reaper, port, [], { GAME_BRIDGE_HOME: home() });
    expect(await getJson(port, '/health')).toEqual({
      ok: true,
      frame: expect.any(Number),
      capabilities: ['input', 'pointer', 'touch', 'axis', 'text', 'clock', 'ui', 'world'],
      sessionEpoch: 0,
    });
    const started = await applied(port, 'start');
    expect(started).toMatchObject({ sessionEpoch: 1, game: { dropperX: 50 } });
    const paused = await applied(port, 'clock.pause');
    expect(paused.clock.paused).toBe(true);
    const held = await applied(port, 'input.hold', { input: 'right', owner: 'me', leaseMs: '30000' });
    expect(held.input.held).toEqual([{ input: 'right', owner: 'me', leaseMsLeft: expect.any(Number) }]);
    await new Promise((r) => setTimeout(r, 100));
    // Held but paused: nothing simulates, so the dropper stays.
    expect((await getJson(port, '/state')).game.dropperX).toBe(50);
    const stepped = await applied(port, 'clock.step', { frames: '10' });
    expect(stepped.simFrame - paused.simFrame).toBe(10);
    expect(stepped.game.dropperX).toBe(70);
    expect(stepped.clock).toEqual({ paused: true, stepFramesLeft: 0 });
    await applied(port, 'input.release', { input: 'right', owner: 'me' });
    const after = await applied(port, 'clock.step', { frames: '3' });
    expect(after.game.dropperX).toBe(70);
    await applied(port, 'drop_here');
    const landed = await applied(port, 'clock.step', { frames: '6' });
    expect(landed.game.crates[0]).toMatchObject({ x: 70, settled: true });
    expect((await applied(port, 'restart')).sessionEpoch).toBe(2);
  });

  test('--no-time: no capabilities, no epoch, reserved commands unknown', async () => {
    const port = await freePort();
    await startExampleGame(reaper, port, ['--no-time'], { GAME_BRIDGE_HOME: home() });
    expect(await getJson(port, '/health')).toEqual({ ok: true, frame: expect.any(Number) });
    expect(await command(port, 'input.hold', { input: 'left', owner: 'a', leaseMs: '100' })).toMatchObject({
      accepted: false,
      error: "unknown command 'input.hold'",
    });
  });
});

describe('Python contract game', () => {
  test('contract: health, state, fire-and-forget commands applied later, unknown refused with known', async () => {
    const port = await freePort();
    await startPyGame(reaper, port, [], { GAME_BRIDGE_HOME: home() });
    expect(await getJson(port, '/health')).toEqual({ ok: true, frame: expect.any(Number) });
    const r = await command(port, 'add', { n: '4' });
    expect(r).toEqual({ accepted: true, commandId: 1, frame: expect.any(Number) });
    const s = await applied(port, 'drop', { x: '12.5' });
    expect(s).toMatchObject({ ui: { screen: 'GameScreen' }, game: { counter: 4, crates: [{ id: 1, x: 12.5 }] } });
    expect(s.simFrame).toBeGreaterThan(0);
    expect(s.events).toEqual(expect.arrayContaining(['add:+4', { m: 'drop:crate#1' }]));
    expect(await command(port, 'fly')).toEqual({
      accepted: false,
      error: "unknown command 'fly'",
      known: ['drop', 'add', 'noop', 'echo', 'close'],
    });
  });

  test('echo keeps special characters and unicode exactly', async () => {
    const port = await freePort();
    await startPyGame(reaper, port, [], { GAME_BRIDGE_HOME: home() });
    const text = '&=?#%+ /unicode é 🚀';
    expect((await applied(port, 'echo', { text })).game.lastEcho).toBe(text);
  });

  test('every manifest shape is served as asked', async () => {
    const shapes = ['array', 'map', 'bare', 'argsmap', 'params', 'arguments', 'malformed', 'none'];
    const ports = await Promise.all(shapes.map(() => freePort()));
    await Promise.all(
      shapes.map((shape, i) =>
        startPyGame(reaper, ports[i], ['--manifest-shape', shape], { GAME_BRIDGE_HOME: home() }),
      ),
    );
    const served: Record<string, any> = {};
    for (const [i, shape] of shapes.entries()) {
      const r = await fetch(`${base(ports[i])}/tools`);
      served[shape] = r.status === 200 ? await r.json() : r.status;
    }
    const play = (m: any) => (Array.isArray(m.toolsets) ? m.toolsets[0] : m.toolsets.play).tools;
    const add = (m: any) => play(m).find((t: any) => t.name === 'add');
    expect(served.none).toBe(404);
    expect(served.array.game).toMatchObject({ name: 'Py Stub', protocol: 1 });
    expect(add(served.array).args).toEqual([{ name: 'n', type: 'number', description: 'How much', default: '1' }]);
    expect(play(served.array).find((t: any) => t.name === 'drop').args[0].default).toBeNull();
    expect(play(served.array).find((t: any) => t.name === 'noop').readOnly).toBe(true);
    expect(Array.isArray(served.map.toolsets)).toBe(false);
    expect(Object.keys(served.map.toolsets)).toEqual(['play', 'tuning']);
    expect(add(served.bare).args).toEqual(['n']);
    expect(add(served.argsmap).args).toEqual({ n: { type: 'number', description: 'How much' } });
    expect(add(served.params).params).toEqual([expect.objectContaining({ name: 'n' })]);
    expect(add(served.arguments).arguments).toEqual([expect.objectContaining({ name: 'n' })]);
    expect(served.array.toolsets[1].tools[0].args.map((a: any) => a.default)).toEqual(['0.05', 'true']);
    const broken = play(served.malformed);
    expect(broken).toEqual(
      expect.arrayContaining([
        { description: 'a tool without a name' },
        expect.objectContaining({ name: 'bad_args', args: 42 }),
        'not even an object',
      ]),
    );
    expect(add(served.malformed)).toBeDefined();
  });

  test('--health-404 makes a stub that is not a game: /health answers 404', async () => {
    const p1 = await freePort();
    const notGame = reaper.spawn(pythonExe(), [PY_GAME, '--port', String(p1), '--health-404']);
    const out = collectOutput(notGame);
    await waitFor('stub ready', () => out.text.includes('ready'));
    const h = await fetch(`${base(p1)}/health`);
    expect(h.status).toBe(404);
  });

  test('--no-completed-id leaves completedCommandId out of the state after a command', async () => {
    const p2 = await freePort();
    await startPyGame(reaper, p2, ['--no-completed-id'], { GAME_BRIDGE_HOME: home() });
    await command(p2, 'noop');
    const s = await waitFor('noop applied', async () => {
      const st = await getJson(p2, '/state');
      return st.game.received.noop ? st : null;
    });
    expect(s).not.toHaveProperty('completedCommandId');
  });

  test('--slow-state 300 delays every /state answer', async () => {
    const p2 = await freePort();
    await startPyGame(reaper, p2, ['--slow-state', '300'], { GAME_BRIDGE_HOME: home() });
    const t0 = Date.now();
    await getJson(p2, '/state');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
  });

  test('--registry writes an entry after the bind and removes it on close and on SIGTERM', async () => {
    for (const how of ['close', 'SIGTERM'] as const) {
      const port = await freePort();
      const h = home();
      const child = await startPyGame(reaper, port, ['--registry', '--name', 'Py Reg'], { GAME_BRIDGE_HOME: h });
      const file = join(h, 'instances', `${child.pid}.json`);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
        name: 'Py Reg',
        port,
        pid: child.pid,
        host: '127.0.0.1',
        protocol: 1,
      });
      const code = exitCode(child);
      if (how === 'close') await command(port, 'close');
      else child.kill('SIGTERM');
      expect(await code).toBe(0);
      expect(existsSync(file)).toBe(false);
    }
  });
});
