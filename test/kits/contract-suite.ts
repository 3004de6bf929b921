/**
 * One suite, run against each kit's example game over real HTTP: the contract endpoints,
 * command confirmation, held inputs with game-enforced leases, per-owner release, the
 * pausable clock with exact steps, session epochs, the UI and world trees with `ui.*` and
 * their re-check, command results, garbage requests, the registry entry and `close`. What
 * each kit serves is in KITS (kit-game.ts); a kit joins by adding its entry there.
 */
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { freePort } from '../helpers/ports.js';
import { Reaper, exitCode, removeDir, tempHome, waitFor, waitGone } from '../helpers/procs.js';
import {
  KITS,
  applied,
  command,
  describeIfRuntime,
  getJson,
  killWithHome,
  sleep,
  startKitGame,
  untilState,
  type Cmd,
  type KitGame,
  type KitName,
} from './kit-game.js';

/** How far the walker moves per simulated frame while `right` is held. */
const SPEED = 2;

/** Every node of a UI tree, depth first. */
export function flatNodes(nodes: any[]): any[] {
  return nodes.flatMap((n) => [n, ...flatNodes(n.children ?? [])]);
}

/** The one node with this role and name. */
export function uiNode(tree: any, role: string, name: string): any {
  const found = flatNodes(tree.nodes).filter((n) => n.role === role && n.name === name);
  if (found.length !== 1) throw new Error(`${found.length} ${role} nodes named '${name}' in ${JSON.stringify(tree)}`);
  return found[0];
}

/** Sends a command, waits for it, and returns its entry in commandResults with the state. */
export async function result(port: number, cmd: string, args: Record<string, string | number> = {}): Promise<any> {
  const r = await command(port, cmd, args);
  if (r.accepted !== true) throw new Error(`${cmd} refused: ${JSON.stringify(r)}`);
  const s = await untilState(port, `${cmd} #${r.commandId} applied`, (st) => st.completedCommandId >= r.commandId);
  return { ...s.commandResults.find((x: any) => x.id === r.commandId), state: s };
}

export function describeKitContract(kit: KitName): void {
  describeIfRuntime(kit, () => contract(kit));
}

function contract(kit: KitName): void {
  const spec = KITS[kit];
  const readyMs = spec.readyMs;
  const reaper = new Reaper();
  const homes: string[] = [];
  let game: KitGame;

  const newHome = () => {
    const h = tempHome(`gb-kit-${kit}-`);
    homes.push(h);
    return h;
  };

  beforeAll(async () => {
    game = await startKitGame(reaper, kit, await freePort(), newHome());
  }, readyMs + 10000);

  afterAll(async () => {
    await reaper.reap();
    homes.forEach(killWithHome);
    homes.forEach(removeDir);
  });

  test('health, state, tools: the contract fields and capabilities', async () => {
    const h1 = await getJson(game.port, '/health');
    expect(h1).toEqual({
      ok: true,
      frame: expect.any(Number),
      capabilities: spec.capabilities,
      sessionEpoch: expect.any(Number),
    });
    const s = await getJson(game.port, '/state');
    expect(s).toMatchObject({
      frame: expect.any(Number),
      simFrame: expect.any(Number),
      completedCommandId: expect.any(Number),
      ui: { screen: 'GameScreen' },
      events: expect.any(Array),
      game: { x: expect.any(Number), jumps: expect.any(Number) },
      input: { held: [] },
      clock: { paused: false },
      sessionEpoch: h1.sessionEpoch,
    });
    expect(s.frame).toBeGreaterThanOrEqual(h1.frame);
    const tools = await getJson(game.port, '/tools');
    expect(tools.game).toMatchObject({
      version: '1.0.0',
      protocol: 1,
      capabilities: spec.capabilities,
      inputs: ['left', 'right'],
    });
    expect(tools.toolsets[0].tools.map((t: any) => t.name).sort()).toEqual(spec.tools);
    const shot = await fetch(`http://127.0.0.1:${game.port}/screenshot`);
    if (spec.screenshot) {
      expect(shot.status).toBe(200);
      expect(shot.headers.get('content-type')).toBe('image/png');
      expect(
        Buffer.from(await shot.arrayBuffer())
          .subarray(1, 4)
          .toString(),
      ).toBe('PNG');
    } else expect(shot.status).toBe(404);
  });

  test('garbage requests get an answer and break nothing', async () => {
    const base = `http://127.0.0.1:${game.port}`;
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    expect((await fetch(`${base}/state`, { method: 'POST', body: 'x' })).status).toBeGreaterThanOrEqual(400);
    const odd = await fetch(`${base}/command?cmd=%ZZ%&&=&x=%E2%82&cmd2`);
    expect(await odd.json()).toMatchObject({ accepted: false });
    const huge = await fetch(`${base}/command?cmd=fly&pad=${'x'.repeat(70000)}`).catch(() => null);
    if (huge) expect(huge.status).toBeGreaterThanOrEqual(400);
    const raw = await new Promise<string>((done) => {
      const sock = net.connect(game.port, '127.0.0.1', () => sock.end('\x00\xff garbage\r\n\r\n'));
      let text = '';
      sock.on('data', (d) => (text += d.toString('latin1')));
      sock.on('close', () => done(text));
      sock.on('error', () => done(text));
    });
    expect(raw).not.toMatch(/^HTTP\/1\.[01] 2/); // refused or closed, never served
    // A client that starts a request and never finishes it holds nothing up.
    const stalled = net.connect(game.port, '127.0.0.1', () => stalled.write('GET /sta'));
    stalled.on('error', () => undefined);
    try {
      await new Promise((r) => stalled.once('connect', r));
      const f1 = (await getJson(game.port, '/health')).frame;
      await untilState(game.port, 'frames still growing', (s) => s.frame > f1 + 2);
    } finally {
      stalled.destroy();
    }
  });

  test('refusals: unknown command with known names, bad arguments, missing cmd', async () => {
    const unknown = await command(game.port, 'fly');
    expect(unknown).toMatchObject({ accepted: false, error: "unknown command 'fly'" });
    expect(unknown.known).toEqual(
      expect.arrayContaining(['jump', 'close', 'input.hold', 'input.releaseAll', 'clock.step']),
    );
    for (const frames of [0, 1.5, 10001]) {
      expect(await command(game.port, 'clock.step', { frames })).toMatchObject({
        accepted: false,
        error: expect.stringMatching(/^argument 'frames' must be a whole number from 1 to 10000/),
      });
    }
    expect(await command(game.port, 'input.hold', { input: 'up', owner: 'a', leaseMs: 1000 })).toMatchObject({
      accepted: false,
      error: "unknown input 'up' (this game reads: left, right)",
    });
    expect(await command(game.port, 'input.hold', { input: 'left', leaseMs: 1000 })).toMatchObject({
      accepted: false,
      error: "missing argument 'owner'",
    });
    expect(await command(game.port, 'input.releaseAll', { owner: ' ' })).toMatchObject({
      accepted: false,
      error: expect.stringMatching(/'owner' must not be empty/),
    });
    expect(await command(game.port, 'input.hold', { input: 'left', owner: 'a', leaseMs: 0 })).toMatchObject({
      accepted: false,
      error: expect.stringMatching(/'leaseMs' must be > 0 and <= 3600000/),
    });
    expect(await command(game.port, 'teleport', { x: 'far' })).toMatchObject({
      accepted: false,
      error: expect.stringMatching(/\bx\b.* must be a number/),
    });
    const missing = await fetch(`http://127.0.0.1:${game.port}/command?x=1`);
    expect(missing.status).toBe(400);
  });

  test('a command is fire and forget, then confirmed by completedCommandId', async () => {
    const before = (await getJson(game.port, '/state')).game.jumps;
    const r = await command(game.port, 'jump');
    expect(r).toEqual({ accepted: true, commandId: expect.any(Number), frame: expect.any(Number) });
    const s = await untilState(game.port, 'jump applied', (st) => st.completedCommandId >= r.commandId);
    expect(s.game.jumps).toBe(before + 1);
    expect(s.events).toContainEqual({ m: `jump:${before + 1}` });
  });

  test('clock: paused keeps answering and applying; step 5 runs exactly 5 frames, completes after them, stays paused', async () => {
    await applied(game.port, 'clock.pause');
    const p1 = await getJson(game.port, '/state');
    expect(p1.clock.paused).toBe(true);
    await sleep(400);
    const p2 = await getJson(game.port, '/state');
    expect(p2.frame).toBeGreaterThan(p1.frame + 3); // frame keeps growing
    expect(p2.simFrame).toBe(p1.simFrame); // simFrame does not

    const moved = await applied(game.port, 'teleport', { x: 100 }); // other commands still apply
    expect(moved.game.x).toBeCloseTo(100, 3);
    expect(moved.simFrame).toBe(p1.simFrame);

    await applied(game.port, 'input.hold', { input: 'right', owner: 'stepper', leaseMs: 20000 });
    const s0 = (await getJson(game.port, '/state')).simFrame;
    const step = await command(game.port, 'clock.step', { frames: 5 });
    const seen: any[] = [];
    const done = await untilState(game.port, 'step done', (s) => {
      seen.push(s);
      return s.completedCommandId >= step.commandId;
    });
    expect(done.simFrame).toBe(s0 + 5);
    expect(done.game.x).toBeCloseTo(100 + 5 * SPEED, 3); // the game read the held input on each stepped frame
    for (const s of seen) {
      expect(s.simFrame).toBeLessThanOrEqual(s0 + 5);
      if (s.completedCommandId >= step.commandId) expect(s.simFrame).toBe(s0 + 5);
    }
    await sleep(250);
    const after = await getJson(game.port, '/state');
    expect(after).toMatchObject({ simFrame: s0 + 5, clock: { paused: true } });
    expect(after.game.x).toBeCloseTo(100 + 5 * SPEED, 3);

    await applied(game.port, 'input.release', { input: 'right', owner: 'stepper' });
    const resumed = await applied(game.port, 'clock.resume');
    await untilState(game.port, 'simFrame moving again', (s) => s.simFrame > resumed.simFrame + 3);
  });

  test('hold → step → release sent back to back: the release waits for the step', async () => {
    await applied(game.port, 'clock.pause');
    await applied(game.port, 'teleport', { x: 50 });
    await command(game.port, 'input.hold', { input: 'right', owner: 'press', leaseMs: 20000 });
    await command(game.port, 'clock.step', { frames: 3 });
    const release = await command(game.port, 'input.release', { input: 'right', owner: 'press' });
    const s = await untilState(game.port, 'release applied', (st) => st.completedCommandId >= release.commandId);
    expect(s.game.x).toBeCloseTo(50 + 3 * SPEED, 3);
    expect(s.input.held).toEqual([]);
    await applied(game.port, 'clock.resume');
  });

  test('a held input with a short lease is released by the game itself', async () => {
    await applied(game.port, 'teleport', { x: 0 });
    const sentAt = Date.now();
    const held = await applied(game.port, 'input.hold', { input: 'right', owner: 'gone-agent', leaseMs: 1500 });
    expect(held.input.held).toEqual([{ input: 'right', owner: 'gone-agent', leaseMsLeft: expect.any(Number) }]);
    expect(held.input.held[0].leaseMsLeft).toBeLessThanOrEqual(1500);
    const released = await untilState(game.port, 'lease expired', (s) => s.input.held.length === 0, 10000);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1400);
    expect(released.game.x).toBeGreaterThan(0); // it walked while held
    const x1 = (await getJson(game.port, '/state')).game.x;
    await sleep(150);
    expect((await getJson(game.port, '/state')).game.x).toBe(x1); // and stopped once released
  });

  test("releaseAll releases only that owner's inputs; release never touches another owner's", async () => {
    await applied(game.port, 'input.hold', { input: 'left', owner: 'a', leaseMs: 20000 });
    await applied(game.port, 'input.hold', { input: 'right', owner: 'a', leaseMs: 20000 });
    await applied(game.port, 'input.hold', { input: 'right', owner: 'b', leaseMs: 20000 });
    await applied(game.port, 'input.release', { input: 'right', owner: 'c' }); // not c's: nothing happens
    expect((await getJson(game.port, '/state')).input.held).toHaveLength(3);
    const s = await applied(game.port, 'input.releaseAll', { owner: 'a' });
    expect(s.input.held).toEqual([{ input: 'right', owner: 'b', leaseMsLeft: expect.any(Number) }]);
    const none = await applied(game.port, 'input.releaseAll', { owner: 'b' });
    expect(none.input.held).toEqual([]);
  });

  test('sessionEpoch changes on reset, in /health and /state', async () => {
    const e0 = (await getJson(game.port, '/health')).sessionEpoch;
    const run0 = (await getJson(game.port, '/state')).game.run;
    const s = await applied(game.port, 'reset');
    expect(s.sessionEpoch).toBe(e0 + 1);
    expect(s.game.run).toBe(run0 + 1);
    expect((await getJson(game.port, '/health')).sessionEpoch).toBe(e0 + 1);
  });

  /** Sends each command and waits for it; returns the state after the last. */
  const run = async (cmds: Cmd[]) => {
    let s: any = null;
    for (const [cmd, args] of cmds) s = await applied(game.port, cmd, args ?? {});
    return s;
  };

  const fails = spec.fails;
  if (fails)
    test('a command that fails on the game thread becomes a result with its words; the game runs on', async () => {
      await run(fails.before);
      const r = await result(game.port, fails.cmd[0], fails.cmd[1] ?? {});
      expect(r).toMatchObject({ id: expect.any(Number), ok: false, error: expect.stringMatching(fails.error) });
      expect(r.state.completedCommandId).toBeGreaterThanOrEqual(r.id); // completion still rises
      await run(fails.after);
      const ok = await result(game.port, 'teleport', { x: 10 });
      expect(ok).toMatchObject({ id: r.id + fails.after.length + 1, ok: true });
      expect(ok.state.commandResults.length).toBeLessThanOrEqual(32);
      const f = ok.state.frame;
      await untilState(game.port, 'frames still growing', (s) => s.frame > f + 2);
    });

  const menu = spec.ui;
  if (menu)
    test('the UI tree: its menu; ui.* applied on the game frame with the re-check, each with its result', async () => {
      await run(menu.open);
      const t1 = await getJson(game.port, '/ui');
      expect(t1).toMatchObject({
        sessionEpoch: expect.any(Number),
        frameSequence: expect.any(Number),
        revision: expect.any(Number),
        screen: menu.screen,
        nodes: expect.any(Array),
      });
      const byId = (tree: any, id: string) => flatNodes(tree.nodes).find((n) => n.id === id);
      const ids = flatNodes(t1.nodes).map((n) => n.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(byId(t1, menu.button)).toMatchObject({ role: 'button', name: expect.any(String) });
      expect(byId(t1, menu.button).enabled).toBeUndefined();
      const disabled = byId(t1, menu.disabled);
      expect(disabled).toMatchObject({ role: 'button', enabled: false });
      expect(byId(t1, menu.slider)).toMatchObject({ role: 'slider', min: 0, max: 1, value: expect.any(Number) });
      await sleep(100);
      const t2 = await getJson(game.port, '/ui');
      expect(t2.frameSequence).toBeGreaterThan(t1.frameSequence); // a newer look...
      expect(t2.revision).toBe(t1.revision); // ...at the same content

      expect(await result(game.port, 'ui.activate', { id: menu.disabled })).toMatchObject({
        ok: false,
        error: `'${disabled.name}' is disabled`,
      });
      expect(await result(game.port, 'ui.activate', { id: 'no-such-node' })).toMatchObject({
        ok: false,
        error: "no UI node 'no-such-node'",
      });
      const out = await result(game.port, 'ui.setValue', { id: menu.slider, value: 3 });
      expect(out).toMatchObject({ ok: false, error: expect.stringMatching(/range.*0.*1/) });
      expect(await result(game.port, 'ui.setValue', { id: menu.slider, value: 0.5 })).toMatchObject({ ok: true });
      expect(byId(await getJson(game.port, '/ui'), menu.slider).value).toBeCloseTo(0.5, 5);
      expect(await command(game.port, 'ui.activate', {})).toMatchObject({
        accepted: false,
        error: expect.stringMatching(/'id'/),
      });

      expect(await result(game.port, 'ui.activate', { id: menu.button })).toMatchObject({ ok: true });
      const t3 = await getJson(game.port, '/ui');
      expect(t3.screen).toBe(menu.after);
      expect(t3.revision).toBeGreaterThan(t2.revision);
      expect(byId(t3, menu.button)?.visible ?? false).toBe(false); // gone, or published hidden
      const again = await result(game.port, 'ui.activate', { id: menu.button }); // the game re-checks
      expect(again).toMatchObject({ ok: false, error: expect.stringMatching(/^(no UI node '.*'|'.*' is hidden)$/) });
    });

  const world = spec.world;
  if (world)
    test('the world tree: its objects in one snapshot, its own revision', async () => {
      const w = await getJson(game.port, '/world');
      expect(w).toMatchObject({
        sessionEpoch: expect.any(Number),
        frameSequence: expect.any(Number),
        revision: expect.any(Number),
        objects: expect.any(Array),
      });
      const o = w.objects.find((x: any) => x.type === world.type);
      expect(o).toMatchObject({ id: expect.any(String), pos: expect.any(Array) });
      const moved = await applied(game.port, 'teleport', { x: 30 });
      expect(moved.completedCommandId).toBeGreaterThan(0);
      const w2 = await getJson(game.port, '/world');
      expect(w2.frameSequence).toBeGreaterThan(w.frameSequence);
      expect(w2.revision).toBeGreaterThan(w.revision);
    });

  test(
    'registry entry written after bind and removed on close; close exits cleanly',
    async () => {
      const home = newHome();
      const g = await startKitGame(reaper, kit, await freePort(), home);
      const entryFile = join(home, 'instances', `${g.child.pid}.json`);
      await waitFor('registry entry', () => existsSync(entryFile), 10000);
      expect(JSON.parse(readFileSync(entryFile, 'utf8'))).toMatchObject({
        port: g.port,
        pid: g.child.pid,
        host: '127.0.0.1',
        protocol: 1,
        version: '1.0.0',
        started: expect.any(String),
        cwd: expect.any(String),
      });
      const code = exitCode(g.child);
      expect(await command(g.port, 'close')).toMatchObject({ accepted: true });
      expect(await code).toBe(0);
      expect(await waitGone(g.child.pid!)).toBe(true);
      expect(existsSync(entryFile)).toBe(false);
    },
    readyMs + 15000,
  );
}
