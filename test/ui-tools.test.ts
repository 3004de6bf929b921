/**
 * The UI and world tools through the real proxy + daemon and the SDK client, against a game
 * that serves the trees by hand (test/fixtures/tree-game.mjs): snapshot text and JSON, `since`
 * unchanged, clicks sent and refused (nothing sent: the game counts what it receives), a click
 * the game refuses on its thread, set_value in and out of range, wait_for_node, find_objects
 * near inside one snapshot, wait_for_object, and a game without the trees.
 */
import { cleanedAfterAll, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { Reaper, tempHome } from './helpers/procs.js';
import { received, startTreeGame } from './helpers/tree-game.js';

const reaper = new Reaper();
const { homes, handles } = cleanedAfterAll();
let port: number;
let bare: number;
let home: string;
let h: McpHandle;

beforeAll(async () => {
  home = tempHome('gb-ui-');
  homes.push(home);
  [port, bare] = await Promise.all([startTreeGame(reaper), startTreeGame(reaper, ['--no-trees'])]);
  h = await client();
}, 60000);

afterAll(() => reaper.reap());

async function client(args: string[] = []): Promise<McpHandle> {
  const c = await connect({ args: ['--no-scan', ...args], env: { GAME_BRIDGE_HOME: home } });
  handles.push(c);
  return c;
}

/** A fresh game for a test that changes it. */
const freshGame = () => startTreeGame(reaper);

test('snapshot answers the visible tree as text with refs, naming its snapshot', async () => {
  const r = await gameCall(h, port, 'snapshot');
  expect(r.isError).toBe(false);
  const lines = r.text.split('\n');
  expect(lines[0]).toMatch(/^MenuScreen · ui revision \d+ · snapshot \d+ · epoch 1$/);
  expect(lines.slice(1, 8)).toEqual([
    '- group "Main menu" [ref=menu]',
    '  - button "Start" [ref=start]',
    '  - button "Options" [ref=opts] disabled',
    '  - slider "Volume" [ref=vol] value=0.8',
    '  - textbox "Name" [ref=player-name]',
    '  - button "Buy sword" [ref=buy]',
    '- text "Presses: 0" [ref=presses]',
  ]);
  expect(r.text).not.toContain('cheat');
}, 30000);

test('snapshot answers the visible tree as JSON beside the text', async () => {
  const r = await gameCall(h, port, 'snapshot');
  expect(r.json).toMatchObject({
    port,
    tool: 'snapshot',
    via: 'bridge',
    view: 'debug',
    tree: 'ui',
    screen: 'MenuScreen',
  });
  expect(r.json.snapshot).toEqual({
    sessionEpoch: 1,
    frameSequence: expect.any(Number),
    revision: expect.any(Number),
  });
  expect(r.json.nodes[0].children.map((n: any) => n.id)).toEqual(['start', 'opts', 'vol', 'player-name', 'buy']);
  expect(r.json.nodes[0].children[0].rect).toEqual([540, 300, 200, 48]);
}, 30000);

test('snapshot answers hidden nodes on request', async () => {
  const hidden = await gameCall(h, port, 'snapshot', { includeHidden: true });
  expect(hidden.text).toContain('  - button "Cheat" [ref=cheat] hidden');
}, 30000);

test('snapshot filtered by role or name answers only the matching nodes', async () => {
  const buttons = await gameCall(h, port, 'snapshot', { role: 'button' });
  expect(buttons.text.split('\n').slice(1)).toEqual([
    '- button "Start" [ref=start]',
    '- button "Options" [ref=opts] disabled',
    '- button "Buy sword" [ref=buy]',
  ]);
  const named = await gameCall(h, port, 'snapshot', { name: 'vol' });
  expect(named.json.nodes.map((n: any) => n.id)).toEqual(['vol']);
}, 30000);

test('snapshot since a revision answers one short line when nothing changed and the whole tree otherwise', async () => {
  const first = await gameCall(h, port, 'snapshot');
  const rev = first.json.snapshot.revision as number;
  const same = await gameCall(h, port, 'snapshot', { since: rev });
  expect(same.text).toMatch(new RegExp(`^unchanged since ui revision ${rev} \\(snapshot \\d+, epoch 1\\)$`));
  expect(same.text.length).toBeLessThanOrEqual(120);
  expect(same.json).toMatchObject({ unchanged: true, snapshot: { revision: rev } });
  const older = await gameCall(h, port, 'snapshot', { since: rev - 1 });
  expect(older.json.unchanged).toBeUndefined();
  expect(older.text).toContain('[ref=start]');
}, 30000);

test("snapshot lists the world's objects with positions, alone or beside the ui tree", async () => {
  const w = await gameCall(h, port, 'snapshot', { tree: 'world' });
  expect(w.text.split('\n')[0]).toMatch(/^world revision \d+ · snapshot \d+ · epoch 1 · 4 matches$/);
  expect(w.text).toMatch(/- crate "Crate one" \[ref=crate-1\] pos=\[\d+,0\] tags=wood/);
  expect(w.json.objects.map((o: any) => o.id)).toEqual(['hero', 'crate-1', 'crate-2', 'gem']);
  const both = await gameCall(h, port, 'snapshot', { tree: 'both' });
  expect(both.text).toContain('[ref=start]');
  expect(both.text).toContain('[ref=hero]');
  expect(both.json.world.snapshot.frameSequence).toEqual(expect.any(Number));
}, 30000);

test('click and activate press the node, confirmed, with the state and ui revision after', async () => {
  const game = await freshGame();
  const before = await gameCall(h, game, 'snapshot');
  const r = await gameCall(h, game, 'click', { ref: 'start' });
  expect(r.isError).toBe(false);
  expect(r.json).toMatchObject({
    tool: 'click',
    ref: 'start',
    command: 'ui.activate',
    applied: true,
    confirmation: 'completedCommandId',
    screen: 'GameScreen',
    game: { started: true, presses: 1 },
  });
  expect(r.json.snapshot.revision).toBeGreaterThan(before.json.snapshot.revision);
  expect(await received(game)).toEqual(['ui.activate']);
  const again = await gameCall(h, game, 'activate', { ref: 'start' });
  expect(again.json).toMatchObject({ tool: 'activate', applied: true, game: { presses: 2 } });
}, 30000);

test.each([
  [
    'missing, naming the near miss',
    'strat',
    /^BridgeUsageError: click: the UI \(revision \d+, snapshot \d+\) has no node 'strat'; nothing was sent\. Similar: button "Start" \[ref=start\]/,
  ],
  [
    'a mistyped ref by name',
    'Optoins',
    /has no node 'Optoins'; nothing was sent\. Similar: button "Options" \[ref=opts\] disabled/,
  ],
  ['hidden', 'cheat', /^BridgeUsageError: click: button "Cheat" \[ref=cheat\] is hidden in the UI .*nothing was sent/],
  [
    'disabled',
    'opts',
    /^BridgeUsageError: click: button "Options" \[ref=opts\] is disabled in the UI .*nothing was sent\. Wait until it is enabled: wait_for_node \{ref: "opts", state: "enabled"\}/,
  ],
])(
  'click refused before anything is sent: %s',
  async (_what, ref, text) => {
    const game = await freshGame();
    const r = await gameCall(h, game, 'click', { ref });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(text);
    expect(r.json).toMatchObject({ kind: 'BridgeUsageError', port: game, ref });
    expect(await received(game)).toEqual([]);
  },
  30000,
);

test('a click the game refuses on its own thread answers CommandFailed with its words and the state', async () => {
  const game = await freshGame();
  const r = await gameCall(h, game, 'click', { ref: 'buy' });
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(
    /^CommandFailed: The game on port \d+ refused 'ui\.activate' \(command 1\) when it applied it: not enough gold: the sword costs 50, you have 0\./,
  );
  expect(r.json).toMatchObject({
    kind: 'CommandFailed',
    cmd: 'ui.activate',
    applied: false,
    reason: 'not enough gold: the sword costs 50, you have 0',
    screen: 'MenuScreen',
    game: { presses: 0 },
  });
  expect(await received(game)).toEqual(['ui.activate']);
}, 30000);

test('set_value applies a number in range or a text to the node and the game', async () => {
  const game = await freshGame();
  const ok = await gameCall(h, game, 'set_value', { ref: 'vol', value: 0.25 });
  expect(ok.isError).toBe(false);
  expect(ok.json).toMatchObject({
    command: 'ui.setValue',
    applied: true,
    game: { volume: 0.25 },
    node: { value: 0.25 },
  });
  const text = await gameCall(h, game, 'set_value', { ref: 'player-name', value: 'Ada' });
  expect(text.json).toMatchObject({ applied: true, game: { name: 'Ada' } });
  expect(await received(game)).toEqual(['ui.setValue', 'ui.setValue']);
}, 30000);

test('set_value out of range is refused naming the range before anything is sent', async () => {
  const game = await freshGame();
  const out = await gameCall(h, game, 'set_value', { ref: 'vol', value: 1.5 });
  expect(out.isError).toBe(true);
  expect(out.text).toMatch(
    /^BridgeUsageError: set_value: "Volume" \[ref=vol\] takes 0 to 1 .*1\.5 is out of range, so nothing was sent/,
  );
  expect(await received(game)).toEqual([]);
}, 30000);

describe('wait_for_node', () => {
  let game = 0;
  beforeAll(async () => {
    game = await freshGame();
  }, 30000);

  test('already satisfied answers at once', async () => {
    const now = await gameCall(h, game, 'wait_for_node', { ref: 'start', state: 'enabled' });
    expect(now.json).toMatchObject({
      matched: true,
      state: 'enabled',
      node: { id: 'start' },
      snapshot: { sessionEpoch: 1 },
    });
    expect(now.json.elapsedMs).toBeLessThan(1000);
  }, 30000);

  test('satisfied by another session answers then', async () => {
    const other = await client();
    const waiting = gameCall(h, game, 'wait_for_node', { ref: 'opts', state: 'enabled', timeoutMs: 15000 });
    await new Promise((r) => setTimeout(r, 300));
    expect((await gameCall(other, game, 'enable_opts')).json.applied).toBe(true);
    const done = await waiting;
    expect(done.isError).toBe(false);
    expect(done.json).toMatchObject({ matched: true, node: { id: 'opts', name: 'Options' } });
    expect(done.json.node.enabled).toBeUndefined();
  }, 30000);

  test('never satisfied times out on time, naming the node', async () => {
    const gone = await gameCall(h, game, 'wait_for_node', {
      role: 'button',
      name: 'Start',
      state: 'gone',
      timeoutMs: 400,
    });
    expect(gone.isError).toBe(true);
    expect(gone.text).toMatch(/^CommandTimeout: wait_for_node button "Start" gone did not hold within 400ms/);
    expect(gone.text).toContain('[ref=start]');
  }, 30000);
});

test('find_objects near resolves the reference and the candidates inside one snapshot, on a world that moves every frame', async () => {
  for (let i = 0; i < 25; i++) {
    const r = await gameCall(h, port, 'find_objects', { near: { ref: 'hero', within: 10 } });
    expect(r.isError).toBe(false);
    // hero and crate-1 move 10 a frame, always 5 apart; the gem 3 apart: a mixed pair would be 5 ± 10k
    expect(r.json.matches.map((m: any) => [m.id, m.distance])).toEqual([
      ['gem', 3],
      ['crate-1', 5],
    ]);
    expect(r.json.snapshot).toEqual({
      sessionEpoch: 1,
      frameSequence: expect.any(Number),
      revision: expect.any(Number),
    });
  }
  const crates = await gameCall(h, port, 'find_objects', { type: 'crate', tag: 'heavy' });
  expect(crates.json.matches.map((m: any) => m.id)).toEqual(['crate-2']);
  const missing = await gameCall(h, port, 'find_objects', { near: { ref: 'heroo', within: 10 } });
  expect(missing.text).toMatch(
    /^BridgeUsageError: find_objects: the world \(revision \d+\) has no object 'heroo'\. Objects: hero, crate-1/,
  );
}, 60000);

test('wait_for_object answers as soon as something matches', async () => {
  const r = await gameCall(h, port, 'wait_for_object', { name: 'crate two', timeoutMs: 3000 });
  expect(r.json).toMatchObject({ matched: true, total: 1, matches: [{ id: 'crate-2' }] });
}, 30000);

test('wait_for_object with no match times out on time', async () => {
  const none = await gameCall(h, port, 'wait_for_object', { type: 'dragon', timeoutMs: 300 });
  expect(none.isError).toBe(true);
  expect(none.text).toMatch(/^CommandTimeout: wait_for_object found no match within 300ms/);
}, 30000);

test('a game without the trees fails clearly, naming the capability', async () => {
  const r = await gameCall(h, bare, 'snapshot');
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(
    /^CapabilityMissing: The game on port \d+ publishes no UI tree \(capability "ui", GET \/ui; it declares none\)/,
  );
  const w = await gameCall(h, bare, 'find_objects', {});
  expect(w.text).toMatch(/publishes no WORLD tree \(capability "world"/);
  expect(await received(bare)).toEqual([]);
}, 30000);

test('a refused tree read on a game without screenshots names get_state, never a screenshot', async () => {
  const r = await gameCall(h, bare, 'snapshot');
  expect(r.text).toContain('Read get_state instead');
  expect(r.text).not.toMatch(/screenshot/);
  const w = await gameCall(h, bare, 'find_objects', {});
  expect(w.text).toContain('Read get_state instead');
  expect(w.text).not.toMatch(/screenshot/);
}, 30000);

test('the reads are safe to re-send, the clicks and values are not', async () => {
  const d = await gameCall(h, port, 'list_toolsets').then(() =>
    h.client.callTool({ name: 'describe_toolset', arguments: { port, toolset: 'bridge' } }),
  );
  const tools = (d.structuredContent as any).tools as Array<{ name: string; readOnly: boolean }>;
  const ro = Object.fromEntries(tools.map((t) => [t.name, t.readOnly]));
  expect(ro).toMatchObject({
    snapshot: true,
    wait_for_node: true,
    find_objects: true,
    wait_for_object: true,
    click: false,
    activate: false,
    set_value: false,
  });
}, 30000);
