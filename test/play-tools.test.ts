/**
 * Playing in time through the real bridge (the real CLI in --no-daemon mode, the official SDK
 * client): the bridge toolset's step/press/hold/release on the Node kit (Crate Stack) and the
 * Python kit (Walker), the clear error on a game without the capability, and held inputs
 * belonging to their MCP session: one client leaving releases only its own.
 */
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { Reaper, removeDir, tempHome, waitFor } from './helpers/procs.js';
import { startExampleGame } from './helpers/procs.js';
import { getJson, startKitGame } from './kits/kit-game.js';

const reaper = new Reaper();
const handles: McpHandle[] = [];
let home: string;
let crate: number, walker: number, oldCrate: number;

beforeAll(async () => {
  home = tempHome('gb-play-');
  [crate, walker, oldCrate] = await freeRange(3);
  await Promise.all([
    startExampleGame(reaper, crate, [], { GAME_BRIDGE_HOME: home }),
    startKitGame(reaper, 'python', walker, home),
    startExampleGame(reaper, oldCrate, ['--no-time'], { GAME_BRIDGE_HOME: home }),
  ]);
}, 60000);

afterAll(async () => {
  await Promise.all(handles.map((h) => h.close()));
  await reaper.reap();
  removeDir(home);
});

async function client(): Promise<McpHandle> {
  const h = await connect({ args: ['--no-daemon', '--no-scan'], env: { GAME_BRIDGE_HOME: home } });
  handles.push(h);
  return h;
}

const simFrame = async (h: McpHandle, port: number) =>
  (await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value as number;

test('the bridge toolset lists the play tools, none of them read-only', async () => {
  const h = await client();
  const d = await call(h, 'describe_toolset', { port: crate, toolset: 'bridge' });
  const play = d.json.tools.filter((t: any) =>
    ['press', 'hold', 'release', 'pause', 'resume', 'step'].includes(t.name),
  );
  expect(play.map((t: any) => t.name).sort()).toEqual(['hold', 'pause', 'press', 'release', 'resume', 'step']);
  expect(play.every((t: any) => t.readOnly === false)).toBe(true);
  expect(play.find((t: any) => t.name === 'step').inputSchema.required).toEqual(['frames']);
}, 60000);

test.each([
  ['Node kit (Crate Stack)', () => crate, 'start'],
  ['Python kit (Walker)', () => walker, undefined],
])(
  'step {frames: 5} advances simFrame by exactly 5 on the %s',
  async (_kit, port, start) => {
    const h = await client();
    if (start) expect((await gameCall(h, port(), start)).json).toMatchObject({ screen: 'GameScreen' }); // Crate Stack simulates only in a round
    expect((await gameCall(h, port(), 'bridge.pause')).json).toMatchObject({ applied: true });
    const s0 = await simFrame(h, port());
    const step = await gameCall(h, port(), 'step', { frames: 5 });
    expect(step.isError).toBe(false);
    expect(step.json).toMatchObject({ tool: 'step', applied: true, stepped: 5, sessionEpoch: expect.any(Number) });
    expect(await simFrame(h, port())).toBe(s0 + 5);
    expect((await gameCall(h, port(), 'bridge.resume')).json).toMatchObject({ applied: true });
  },
  60000,
);

test('step {until} stops on the frame the condition first holds', async () => {
  const h = await client();
  await gameCall(h, walker, 'bridge.pause');
  await gameCall(h, walker, 'teleport', { x: 20 });
  expect((await gameCall(h, walker, 'hold', { input: 'right', ms: 30000 })).json).toMatchObject({ applied: true });
  const s0 = await simFrame(h, walker);
  const r = await gameCall(h, walker, 'step', { frames: 100, until: { path: 'game.x', gte: 25 } });
  expect(r.json).toMatchObject({ matched: true, stepped: 3, path: 'game.x', value: 26 }); // 2 units a frame
  expect(await simFrame(h, walker)).toBe(s0 + 3);
  const out = await gameCall(h, walker, 'step', { frames: 2, until: { path: 'game.x', lt: 0 } });
  expect(out.json).toMatchObject({ matched: false, stepped: 2 });
  await gameCall(h, walker, 'release', {});
  expect((await getJson(walker, '/state')).input.held).toEqual([]);
  await gameCall(h, walker, 'bridge.resume');
}, 60000);

test('press on a game without held inputs fails clearly, naming the capability', async () => {
  const h = await client();
  const r = await gameCall(h, oldCrate, 'press', { input: 'left' });
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(/^CapabilityMissing: The game on port \d+ does not support held inputs \(capability "input"/);
  expect(r.text).toMatch(/docs\/KITS\.md/);
}, 60000);

test('press holds for the frames asked, then releases', async () => {
  const h = await client();
  await gameCall(h, walker, 'bridge.pause');
  await gameCall(h, walker, 'teleport', { x: 10 });
  const r = await gameCall(h, walker, 'press', { input: 'right', frames: 4 });
  expect(r.json).toMatchObject({ applied: true, input: 'right', frames: 4, game: { x: 18 } });
  expect((await getJson(walker, '/state')).input.held).toEqual([]);
  await gameCall(h, walker, 'bridge.resume');
}, 60000);

test('a hold while the clock is paused says so: the input is held, but nothing moves', async () => {
  const h = await client();
  await gameCall(h, walker, 'bridge.pause');
  const held = await gameCall(h, walker, 'hold', { input: 'right', ms: 5000 });
  expect(held.json).toMatchObject({ applied: true, input: 'right', clockPaused: true });
  expect(held.json.note).toMatch(/clock is paused.*nothing moves until resume/);
  await gameCall(h, walker, 'release', {});
  await gameCall(h, walker, 'bridge.resume');
  const running = await gameCall(h, walker, 'hold', { input: 'right', ms: 5000 });
  expect(running.json).toMatchObject({ applied: true, input: 'right' });
  expect(running.json).not.toHaveProperty('clockPaused');
  await gameCall(h, walker, 'release', {});
}, 60000);

test('one client leaving releases only its own held inputs on a game two sessions hold', async () => {
  const a = await client();
  const b = await client();
  expect((await gameCall(a, crate, 'hold', { input: 'left', ms: 60000 })).json).toMatchObject({ applied: true });
  expect((await gameCall(b, crate, 'hold', { input: 'right', ms: 60000 })).json).toMatchObject({ applied: true });
  const held = () => getJson(crate, '/state').then((s) => (s.input.held as any[]).map((x) => x.input).sort());
  expect(await held()).toEqual(['left', 'right']);
  const listed = (await call(a, 'list_instances', {})).json.live.find((g: any) => g.port === crate);
  expect(listed.held).toEqual(
    expect.arrayContaining([
      { input: 'left', owner: 'you', leaseMsLeft: expect.any(Number) },
      { input: 'right', owner: 'another session', leaseMsLeft: expect.any(Number) },
    ]),
  );
  await b.close();
  await waitFor(
    'only the leaving session released',
    async () => ((await held()).join() === 'left' ? true : null),
    15000,
  );
  expect(await held()).toEqual(['left']); // still held after the other one left
  await gameCall(a, crate, 'release', { input: 'left' });
  expect(await held()).toEqual([]);
}, 60000);

test('a new run mid-wait_for (another session starts a round) fails the wait clearly, naming both epochs', async () => {
  const a = await client();
  const b = await client();
  const epoch = (await gameCall(a, crate, 'get_state', { path: 'sessionEpoch' })).json.value as number;
  const waiting = gameCall(a, crate, 'wait_for', { path: 'game.score', equals: -1, timeoutMs: 20000 });
  await new Promise((r) => setTimeout(r, 300));
  await gameCall(b, crate, 'start');
  const r = await waiting;
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(
    new RegExp(
      `^CallInterrupted: wait_for game\\.score on port ${crate} was interrupted: the game started a new run while it was pending \\(sessionEpoch went from ${epoch} to ${epoch + 1}\\)`,
    ),
  );
}, 60000);
