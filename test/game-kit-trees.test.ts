/**
 * The Node kit's UI and world trees and command results, in-process over real HTTP: what
 * /ui and /world publish and when their counters move, the ui.* commands and their re-check
 * on the tick, and `commandResults` for every command (a throwing handler included).
 */
import { createGameSurface, type GameSurface, type UiNode, type WorldObject } from '../kits/js/index.js';
import { removeDir, tempHome } from './helpers/procs.js';

const surfaces: GameSurface[] = [];
const homes: string[] = [];
afterEach(async () => {
  await Promise.all(surfaces.splice(0).map((s) => s.close()));
  homes.splice(0).forEach(removeDir);
});

/** A small menu game: Start (enabled), Options (disabled), Volume slider, Music checkbox, a hidden panel. */
async function menuGame() {
  const game = { started: 0, volume: 0.5, music: true, name: '', focus: '', panelShown: false, crates: 1 };
  const nodes = (): UiNode[] => [
    {
      id: 'menu',
      role: 'group',
      name: 'Main menu',
      children: [
        { id: 'start', role: 'button', name: 'Start', rect: [10, 20, 100, 30], activate: () => game.started++ },
        { id: 'opts', role: 'button', name: 'Options', enabled: false, activate: () => game.started-- },
        {
          id: 'vol',
          role: 'slider',
          name: 'Volume',
          value: game.volume,
          min: 0,
          max: 1,
          setValue: (v) => void (game.volume = v as number),
        },
        { id: 'music', role: 'checkbox', name: 'Music', checked: game.music, setValue: (v) => (game.music = !!v) },
        {
          id: 'player',
          role: 'textbox',
          name: 'Name',
          value: game.name,
          focused: game.focus === 'player',
          setValue: (v) => void (game.name = String(v)),
          focus: () => void (game.focus = 'player'),
        },
        { id: 'label', role: 'text', name: 'Crate Stack' },
      ],
    },
    {
      id: 'panel',
      role: 'dialog',
      name: 'Secrets',
      visible: game.panelShown,
      children: [{ id: 'secret', role: 'button', name: 'Secret', activate: () => game.started++ }],
    },
  ];
  const world = (): WorldObject[] =>
    Array.from({ length: game.crates }, (_, i) => ({ id: `crate-${i + 1}`, type: 'crate', pos: [i * 10, 0] }));
  const home = tempHome('gb-kit-trees-');
  homes.push(home);
  const surface = createGameSurface({
    port: 0,
    name: 'Menu',
    version: '1.0.0',
    env: { GAME_BRIDGE_HOME: home },
    handleSignals: false,
    register: false,
    log: () => undefined,
    sessionEpoch: 1,
    snapshot: () => ({ game: { ...game } }),
    ui: () => ({ screen: 'MenuScreen', nodes: nodes() }),
    world,
    commands: {
      boom: () => {
        throw new Error('the crate fell through the floor');
      },
      more: () => void game.crates++,
    },
  });
  surfaces.push(surface);
  await surface.listen();
  const get = async (path: string) => (await fetch(`http://127.0.0.1:${surface.port}${path}`)).json() as any;
  /** Sends, ticks once, and gives the command's result from /state. */
  const run = async (query: string) => {
    const sent = await get(`/command?${query}`);
    expect(sent).toMatchObject({ accepted: true });
    surface.tick();
    const s = await get('/state');
    expect(s.completedCommandId).toBeGreaterThanOrEqual(sent.commandId);
    return s.commandResults.find((r: any) => r.id === sent.commandId);
  };
  return { game, surface, get, run };
}

test('/ui and /world: the published shape, capabilities, defaults and handlers left out', async () => {
  const g = await menuGame();
  expect(await g.get('/health')).toMatchObject({ capabilities: ['ui', 'world'] });
  const ui = await g.get('/ui');
  expect(ui).toEqual({
    sessionEpoch: 1,
    frameSequence: 1,
    revision: 1,
    screen: 'MenuScreen',
    nodes: [
      {
        id: 'menu',
        role: 'group',
        name: 'Main menu',
        children: [
          { id: 'start', role: 'button', name: 'Start', rect: [10, 20, 100, 30] },
          { id: 'opts', role: 'button', name: 'Options', enabled: false },
          { id: 'vol', role: 'slider', name: 'Volume', value: 0.5, min: 0, max: 1 },
          { id: 'music', role: 'checkbox', name: 'Music', checked: true },
          { id: 'player', role: 'textbox', name: 'Name', value: '', focused: false },
          { id: 'label', role: 'text', name: 'Crate Stack' },
        ],
      },
      {
        id: 'panel',
        role: 'dialog',
        name: 'Secrets',
        visible: false,
        children: [{ id: 'secret', role: 'button', name: 'Secret' }],
      },
    ],
  });
  expect(await g.get('/world')).toEqual({
    sessionEpoch: 1,
    frameSequence: 1,
    revision: 1,
    objects: [{ id: 'crate-1', type: 'crate', pos: [0, 0] }],
  });
});

test('frameSequence grows with every published frame but revision only with changed content', async () => {
  const g = await menuGame();
  const a = await g.get('/ui');
  expect(await g.get('/ui')).toMatchObject({ frameSequence: a.frameSequence }); // same frame: same snapshot
  g.surface.tick();
  const b = await g.get('/ui');
  expect(b).toMatchObject({ frameSequence: a.frameSequence + 1, revision: a.revision });
  g.surface.tick();
  g.surface.tick();
  const c = await g.get('/ui');
  expect(c).toMatchObject({ frameSequence: b.frameSequence + 1, revision: a.revision });
  await g.run('cmd=ui.setValue&id=vol&value=0.25');
  expect(await g.get('/ui')).toMatchObject({ frameSequence: c.frameSequence + 1, revision: a.revision + 1 });
  const w = await g.get('/world');
  await g.run('cmd=more');
  expect(await g.get('/world')).toMatchObject({ frameSequence: w.frameSequence + 1, revision: w.revision + 1 });
  expect((await g.get('/world')).objects).toHaveLength(2);
});

test('ui.activate, ui.setValue and ui.focus act on the tick and report ok', async () => {
  const g = await menuGame();
  expect(await g.get('/command?cmd=ui.activate&id=start')).toMatchObject({ accepted: true });
  expect(g.game.started).toBe(0); // queued, not applied
  g.surface.tick();
  expect(g.game.started).toBe(1);
  expect(await g.run('cmd=ui.setValue&id=vol&value=0.8')).toEqual({ id: 2, ok: true });
  expect(g.game.volume).toBe(0.8);
  expect(await g.run('cmd=ui.setValue&id=music&value=false')).toMatchObject({ ok: true });
  expect(g.game.music).toBe(false);
  expect(await g.run('cmd=ui.setValue&id=player&value=Ada%20L.')).toMatchObject({ ok: true });
  expect(g.game.name).toBe('Ada L.');
  expect(await g.run('cmd=ui.focus&id=player')).toMatchObject({ ok: true });
  expect((await g.get('/ui')).nodes[0].children[4]).toMatchObject({ focused: true, value: 'Ada L.' });
});

test('the re-check on the tick: missing, hidden, disabled, out of range and wrong kinds fail with the reason', async () => {
  const g = await menuGame();
  const fail = async (query: string, error: string) =>
    expect(await g.run(query)).toEqual({ id: expect.any(Number), ok: false, error });
  await fail('cmd=ui.activate&id=nope', "no UI node 'nope'");
  await fail('cmd=ui.activate&id=opts', "'Options' is disabled");
  await fail('cmd=ui.activate&id=secret', "'Secret' is hidden"); // hidden through its parent
  await fail('cmd=ui.setValue&id=vol&value=5', "'Volume' takes 0 to 1, got 5");
  await fail('cmd=ui.setValue&id=vol&value=loud', "'Volume' takes a number, got 'loud'");
  await fail('cmd=ui.setValue&id=music&value=maybe', "'Music' takes true or false, got 'maybe'");
  await fail('cmd=ui.activate&id=label', "'Crate Stack' (text) cannot be activated");
  await fail('cmd=ui.setValue&id=start&value=1', "'Start' (button) takes no value");
  expect(g.game).toMatchObject({ started: 0, volume: 0.5, music: true });
  // A node that was fine when sent but is gone by the tick fails on the tick.
  g.game.panelShown = true;
  const sent = await g.get('/command?cmd=ui.activate&id=secret');
  g.game.panelShown = false;
  g.surface.tick();
  expect((await g.get('/state')).commandResults.at(-1)).toEqual({
    id: sent.commandId,
    ok: false,
    error: "'Secret' is hidden",
  });
  // Arguments are checked on arrival.
  expect(await g.get('/command?cmd=ui.activate')).toEqual({ accepted: false, error: "missing argument 'id'" });
  expect(await g.get('/command?cmd=ui.setValue&id=vol')).toEqual({
    accepted: false,
    error: "missing argument 'value'",
  });
});

test('commandResults keeps the last 32, with ok:false and its message for a throwing handler while the game runs on', async () => {
  const g = await menuGame();
  expect(await g.run('cmd=boom')).toEqual({ id: 1, ok: false, error: 'the crate fell through the floor' });
  expect(await g.run('cmd=more')).toEqual({ id: 2, ok: true });
  expect(g.game.crates).toBe(2);
  for (let i = 0; i < 40; i++) await g.get('/command?cmd=more');
  g.surface.tick();
  const s = await g.get('/state');
  expect(s.completedCommandId).toBe(42);
  expect(s.commandResults).toHaveLength(32);
  expect(s.commandResults[0].id).toBe(11);
  expect(s.commandResults.at(-1)).toEqual({ id: 42, ok: true });
});

test('the kit owns the ui.* names and serves a tree only for a game with its provider', async () => {
  expect(() =>
    createGameSurface({ port: 0, name: 'x', version: '1', snapshot: () => ({}), commands: { 'ui.click': () => 0 } }),
  ).toThrow(/'ui.click' is reserved/);
  const home = tempHome('gb-kit-trees-');
  homes.push(home);
  const plain = createGameSurface({
    port: 0,
    name: 'Plain',
    version: '1',
    snapshot: () => ({}),
    env: { GAME_BRIDGE_HOME: home },
    handleSignals: false,
    register: false,
    log: () => undefined,
  });
  surfaces.push(plain);
  await plain.listen();
  const r = await fetch(`http://127.0.0.1:${plain.port}/ui`);
  expect(r.status).toBe(404);
  expect(await r.json()).toEqual({ error: 'this game publishes no UI tree' });
  const c = await (await fetch(`http://127.0.0.1:${plain.port}/command?cmd=ui.activate&id=x`)).json();
  expect(c).toMatchObject({ accepted: false, error: "unknown command 'ui.activate'" });
});
