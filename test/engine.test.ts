/**
 * The engine end to end, in-process (`--no-daemon`): the real CLI over stdio driven by the SDK
 * Client, against the example game and a game written in Python.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freePort, freeRange } from './helpers/ports.js';
import {
  healthOk,
  PY_GAME,
  pythonExe,
  Reaper,
  removeDir,
  startExampleGame,
  startPyGame,
  tempHome,
  waitFor,
} from './helpers/procs.js';

const reaper = new Reaper();
let home: string;
let mcp: McpHandle;
let crate: number; // example game
let py: number; // python game, completedCommandId
let pyNoId: number; // python game without completedCommandId
let notGame: number; // answers 404 on /health
let dead: number; // nothing there
let scan: number[];

beforeAll(async () => {
  home = tempHome();
  scan = await freeRange(6);
  [crate, py, pyNoId, notGame, dead] = scan;
  const env = { GAME_BRIDGE_HOME: home };
  // notGame: the python stub with --health-404 is "something that is not a game"; all four start at once
  const notAGame = async () => {
    reaper.spawn(pythonExe(), [PY_GAME, '--port', String(notGame), '--health-404'], {
      env: { ...process.env, ...env },
    });
    await waitFor(
      'not-a-game surface',
      async () => (await fetch(`http://127.0.0.1:${notGame}/health`)).status === 404,
      30000,
    );
  };
  await Promise.all([
    startExampleGame(reaper, crate, [], env),
    startPyGame(reaper, py, ['--registry'], env),
    startPyGame(reaper, pyNoId, ['--no-completed-id', '--manifest-shape', 'map'], env),
    notAGame(),
  ]);
  // a stale registry entry: a dead port
  mkdirSync(join(home, 'instances'), { recursive: true });
  writeFileSync(
    join(home, 'instances', '999999.json'),
    JSON.stringify({ name: 'Ghost', port: dead, pid: 999999, host: '127.0.0.1' }),
  );
  mcp = await connect({ args: ['--no-daemon', '--scan-range', `${scan[0]}-${scan[5]}`], env });
}, 120_000); // four processes starting on a machine that may be loaded

afterAll(async () => {
  await mcp?.close();
  await reaper.reap();
  removeDir(home);
});

test('advertises exactly the MCP tools, with instructions and listChanged', async () => {
  const { tools } = await mcp.client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(
    [
      'call_tool',
      'describe_toolset',
      'instance_log',
      'launch_instance',
      'list_instances',
      'list_toolsets',
      'stop_instance',
    ].sort(),
  );
  const hints = (name: string) => tools.find((t) => t.name === name)?.annotations;
  expect(hints('list_toolsets')?.readOnlyHint).toBe(true);
  expect(hints('call_tool')?.readOnlyHint).toBe(false);
  // list_instances {prune: true} deletes registry files: not read-only, but only dead entries go
  expect(hints('list_instances')).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
  expect(hints('stop_instance')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
  expect(mcp.client.getInstructions()).toMatch(/list_toolsets.*describe_toolset.*call_tool/s);
  expect(mcp.client.getServerCapabilities()?.tools?.listChanged).toBe(true);
});

test('server/discover on a 2025 connection is Method not found: the opening pinned the era (2026 openings: protocol-eras tests)', async () => {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  await expect(
    mcp.client.request({ method: 'server/discover', params: { _meta: meta } } as never, (await import('zod')).z.any()),
  ).rejects.toThrow(/Method not found/);
});

test('list_instances: both / scan, stale, notAGame, free', async () => {
  const { json } = await call(mcp, 'list_instances');
  const byPort = new Map((json.live as any[]).map((l) => [l.port, l]));
  expect(byPort.get(crate)).toMatchObject({ discovery: 'both', status: 'live', game: 'Crate Stack', manifest: 'game' });
  expect(byPort.get(py)).toMatchObject({ discovery: 'both', status: 'live' });
  expect(byPort.get(pyNoId)).toMatchObject({ discovery: 'scan' });
  expect(byPort.get(crate).toolsets).toEqual(expect.arrayContaining(['play', 'bridge']));
  expect(json.stale).toEqual(expect.arrayContaining([expect.objectContaining({ port: dead, pid: 999999 })]));
  expect(json.notAGame).toEqual([expect.objectContaining({ port: notGame, detail: expect.stringMatching(/404/) })]);
  expect(json.free).toContain(scan[5]);
});

test('list_toolsets and describe_toolset (defaults folded into descriptions)', async () => {
  const ts = await call(mcp, 'list_toolsets', { port: crate });
  expect(ts.json.toolsets.map((t: any) => t.name)).toEqual(expect.arrayContaining(['play', 'bridge']));
  const play = await call(mcp, 'describe_toolset', { port: crate, toolset: 'play' });
  const drop = play.json.tools.find((t: any) => t.name === 'drop');
  expect(drop.inputSchema.properties.x.type).toBe('number');
  expect(JSON.stringify(drop.inputSchema)).not.toMatch(/"default"/);
  const bad = await call(mcp, 'describe_toolset', { port: crate, toolset: 'nope' });
  expect(bad.isError).toBe(true);
  expect(bad.text).toMatch(/^BridgeUsageError: .*play/);
});

test('describe_toolset takes `name` too, the argument the first README gave it', async () => {
  const byName = await call(mcp, 'describe_toolset', { port: crate, name: 'play' });
  expect(byName.isError).toBe(false);
  expect(byName.json.tools.map((t: any) => t.name)).toContain('drop');
  const neither = await call(mcp, 'describe_toolset', { port: crate });
  expect(neither.text).toMatch(/^BridgeUsageError: describe_toolset: missing required argument 'toolset'/);
});

test('10 sequential drops each see their own crate (state after the command)', async () => {
  await gameCall(mcp, crate, 'start');
  let before = (await gameCall(mcp, crate, 'get_state', { path: 'game.crates' })).json.value.length;
  for (let i = 0; i < 10; i++) {
    const r = await gameCall(mcp, crate, 'drop', { x: i });
    expect(r.isError).toBe(false);
    expect(r.json).toMatchObject({
      port: crate,
      tool: 'drop',
      via: 'manifest',
      applied: true,
      confirmation: 'completedCommandId',
    });
    expect(r.json.game.crates.length).toBe(before + 1);
    before++;
  }
});

test("a game tool's arguments are checked against its manifest before anything is sent", async () => {
  await gameCall(mcp, crate, 'start');
  const crates = async () => (await gameCall(mcp, crate, 'get_state', { path: 'game.crates' })).json.value.length;
  const before = await crates();
  const missing = await gameCall(mcp, crate, 'drop', { y: 3 });
  expect(missing.text).toMatch(
    /^BridgeUsageError: drop: (missing required argument 'x'|no argument 'y')\. It takes: x \(number\)/,
  );
  const unknown = await gameCall(mcp, crate, 'drop', { x: 3, y: 3 });
  expect(unknown.text).toMatch(/^BridgeUsageError: drop: no argument 'y'\. It takes: x \(number\), settle \(boolean\)/);
  const wrong = await gameCall(mcp, crate, 'drop', { x: 'left' });
  expect(wrong.text).toMatch(/^BridgeUsageError: drop: argument 'x' must be a number, got "left"/);
  expect(await crates()).toBe(before); // none of them reached the game
  // a number or a flag as its text passes, as a typed serializer or a shell sends it
  const text = await gameCall(mcp, crate, 'drop', { x: '12.5', settle: 'false' });
  expect(text.json).toMatchObject({ tool: 'drop', via: 'manifest', applied: true });
  expect(await crates()).toBe(before + 1);
  // raw_command sends what it is given, unchecked: the door for what a manifest does not say
  const raw = await gameCall(mcp, crate, 'raw_command', { cmd: 'drop', args: { x: 20, y: 1 } });
  expect(raw.json).toMatchObject({ tool: 'raw_command', applied: true });
  expect(await crates()).toBe(before + 2);
});

test('python game: manifest call, state after command, passthrough, unknown command', async () => {
  const r = await gameCall(mcp, py, 'add', { n: 5 });
  expect(r.json).toMatchObject({ applied: true, confirmation: 'completedCommandId' });
  const echo = await gameCall(mcp, py, 'echo', { text: 'a&b=c?d#e%f+g /é🚀"\'' });
  expect(echo.json.game.lastEcho).toBe('a&b=c?d#e%f+g /é🚀"\'');
  const unknown = await gameCall(mcp, py, 'fly_to_moon');
  expect(unknown.isError).toBe(true);
  expect(unknown.text).toMatch(/^CommandRejected: .*fly_to_moon.*drop/);
  // what it accepts is what this game can serve: no input, clock or /screenshot here
  const accepts = /It accepts: ([^.]*)\./.exec(unknown.text)![1].split(', ');
  expect(accepts).toEqual(expect.arrayContaining(['drop', 'get_state', 'wait_for', 'raw_command', 'health']));
  for (const absent of ['press', 'hold', 'release', 'pause', 'resume', 'step', 'screenshot'])
    expect(accepts).not.toContain(absent);
});

test('a command the game knows but refused is "refused" with its reason, not "does not know"', async () => {
  // input.hold is a reserved command of the kit, not in Crate Stack's manifest: a passthrough
  const r = await gameCall(mcp, crate, 'input.hold', { leaseMs: 100 });
  expect(r.text).toMatch(/^CommandRejected: The game on port \d+ refused 'input\.hold': \S/);
  expect(r.text).not.toMatch(/does not know/);
  expect(r.json).toMatchObject({ kind: 'CommandRejected', cmd: 'input.hold' });
});

test('frames-advanced when the game publishes no completedCommandId', async () => {
  const r = await gameCall(mcp, pyNoId, 'drop', { x: 1 });
  expect(r.json).toMatchObject({ applied: true, confirmation: 'frames-advanced' });
});

test('wait_for answers once the condition holds, with the value', async () => {
  await gameCall(mcp, crate, 'start');
  const ok = await gameCall(mcp, crate, 'wait_for', { path: 'frame', gt: 0, timeoutMs: 2000 });
  expect(ok.json).toMatchObject({ matched: true });
  const screen = await gameCall(mcp, crate, 'wait_for', { path: 'ui.screen', equals: 'GameScreen', timeoutMs: 2000 });
  expect(screen.json.value).toBe('GameScreen');
});

test('wait_for times out saying what did not hold', async () => {
  await gameCall(mcp, crate, 'start');
  const late = await gameCall(mcp, crate, 'wait_for', { path: 'ui.screen', equals: 'Nowhere', timeoutMs: 300 });
  expect(late.isError).toBe(true);
  expect(late.text).toMatch(/^CommandTimeout: wait_for ui.screen equals "Nowhere" did not hold within 300ms/);
});

test('get_state with a path answers the value there', async () => {
  await gameCall(mcp, crate, 'start');
  const r = await gameCall(mcp, crate, 'get_state', { path: 'ui.screen' });
  expect(r.json.value).toBe('GameScreen');
});

test('get_state with a missing path says what exists', async () => {
  await gameCall(mcp, crate, 'start');
  const miss = await gameCall(mcp, crate, 'get_state', { path: 'game.nope' });
  expect(miss.text).toMatch(/^BridgeUsageError: .*'game' has: .*score/);
});

test('GameOffline and NotAGameSurface texts', async () => {
  const off = await gameCall(mcp, dead, 'get_state');
  expect(off.isError).toBe(true);
  expect(off.text).toMatch(
    new RegExp(`^GameOffline: No game is answering on http://127.0.0.1:${dead}\\..*launch_instance`),
  );
  expect(off.res.structuredContent).toEqual({ kind: 'GameOffline', port: dead, view: 'debug' }); // the facts, for a program to read
  const nag = await call(mcp, 'list_toolsets', { port: notGame });
  expect(nag.text).toMatch(
    new RegExp(
      `^NotAGameSurface: Something is listening on http://127.0.0.1:${notGame}, but it is not a debuggable game: GET /health returned HTTP 404`,
    ),
  );
});

test('CommandTimeout when the game freezes', async () => {
  const frozen = await freePort(); // a game of its own: the shared one must not stall the other tests
  await startExampleGame(reaper, frozen, [], { GAME_BRIDGE_HOME: home });
  const h = await connect({ args: ['--no-daemon', '--timeout', '400', '--no-scan'], env: { GAME_BRIDGE_HOME: home } });
  try {
    const r = await gameCall(h, frozen, 'freeze', { ms: 1500 });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(
      new RegExp(`^CommandTimeout: Command 'freeze' was queued on port ${frozen} but was not applied within 400ms`),
    );
  } finally {
    await h.close();
  }
});

test('every wait_for operator, through the bridge: each holds when it should and times out when it should not', async () => {
  // game.seed is 'crates' and frame only grows, whatever other tests did to this game
  const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [
      { path: 'game.seed', equals: 'crates' },
      { path: 'game.seed', equals: 'boxes' },
    ],
    [
      { path: 'game.seed', notEquals: 'boxes' },
      { path: 'game.seed', notEquals: 'crates' },
    ],
    [
      { path: 'frame', gt: 0 },
      { path: 'frame', gt: 1e15 },
    ],
    [
      { path: 'frame', gte: 1 },
      { path: 'frame', gte: 1e15 },
    ],
    [
      { path: 'frame', lt: 1e15 },
      { path: 'frame', lt: 0 },
    ],
    [
      { path: 'frame', lte: 1e15 },
      { path: 'frame', lte: 0 },
    ],
    [
      { path: 'game.seed', contains: 'rat' },
      { path: 'game.seed', contains: 'box' },
    ],
    [
      { path: 'game.seed', matches: '^cr.*s$' },
      { path: 'game.seed', matches: '^box' },
    ],
    [
      { path: 'game.seed', exists: true },
      { path: 'game.nope', exists: true },
    ],
    [
      { path: 'game.nope', exists: false },
      { path: 'game.seed', exists: false },
    ],
  ];
  for (const [holds, never] of cases) {
    const yes = await gameCall(mcp, crate, 'wait_for', { ...holds, timeoutMs: 2000 });
    expect(`${JSON.stringify(holds)} → ${yes.isError ? yes.text : yes.json.matched}`).toBe(
      `${JSON.stringify(holds)} → true`,
    );
    const no = await gameCall(mcp, crate, 'wait_for', { ...never, timeoutMs: 150 });
    expect(`${JSON.stringify(never)} → ${no.text.split(':')[0]}`).toBe(`${JSON.stringify(never)} → CommandTimeout`);
  }
});

test('bad arguments get BridgeUsageError, not a protocol error', async () => {
  const r = await call(mcp, 'call_tool', { port: 70000, name: 'drop' });
  expect(r.text).toMatch(/^BridgeUsageError: .*port/);
  const noName = await call(mcp, 'call_tool', { port: crate });
  expect(noName.text).toMatch(/^BridgeUsageError: call_tool: missing required argument 'name'/);
  const notTool = await call(mcp, 'drop', {});
  expect(notTool.text).toMatch(/^BridgeUsageError: There is no MCP tool 'drop'.*call_tool/);
});

test('bounded answers: a state over --max-chars is cut with a marker', async () => {
  // A state of known size, whatever earlier tests left: a new round and five crates in one column.
  await gameCall(mcp, crate, 'start');
  for (let i = 0; i < 5; i++) await gameCall(mcp, crate, 'drop', { x: 50, settle: false });
  const whole = (await gameCall(mcp, crate, 'get_state')).text.length;
  const max = 500; // the smallest --max-chars there is
  expect(whole).toBeGreaterThan(max + 200);
  const h = await connect({
    args: ['--no-daemon', '--max-chars', String(max), '--no-scan'],
    env: { GAME_BRIDGE_HOME: home },
  });
  try {
    const r = await gameCall(h, crate, 'get_state');
    expect(r.json.truncated).toBe(true);
    expect(r.json.note).toMatch(/get_state \{path/);
    expect(r.text.length).toBeLessThanOrEqual(max);
  } finally {
    await h.close();
  }
});

test('port resolution: --port default, GAME_BRIDGE_PORT, then 7777', async () => {
  const h = await connect({
    args: ['--no-daemon', '--no-scan'],
    env: { GAME_BRIDGE_HOME: home, GAME_BRIDGE_PORT: String(py) },
  });
  try {
    const r = await gameCall(h, undefined as unknown as number, 'health');
    expect(r.json.port).toBe(py);
  } finally {
    await h.close();
  }
});

test('launch tools answer a clear error without gamebridge.json', async () => {
  const r = await call(mcp, 'launch_instance');
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(/^BridgeUsageError: .*gamebridge\.json/);
  const s = await call(mcp, 'stop_instance', { port: crate });
  expect(s.text).toMatch(/^NotLaunchedHere: /);
});

test('stop_instance on a port where nothing runs says nothing is running there', async () => {
  const s = await call(mcp, 'stop_instance', { port: dead });
  expect(s.isError).toBe(true);
  expect(s.text).toMatch(
    new RegExp(`^GameOffline: Nothing is running on port ${dead}, so there is nothing to stop\\.`),
  );
  expect(s.text).not.toMatch(/not launched/);
});

test('with no port given, GameOffline says 7777 was the fallback and where a port can come from', async () => {
  // this session has no --port, no GAME_BRIDGE_PORT and launched no game, so it falls back to 7777
  expect(await healthOk(7777)).toBe(false);
  const r = await call(mcp, 'list_toolsets', {});
  expect(r.text).toMatch(/^GameOffline: No game is answering on http:\/\/127\.0\.0\.1:7777\./);
  expect(r.text).toMatch(
    /No port was given, so the bridge tried 7777, its fallback: pass `port`, start the server with --port \(or GAME_BRIDGE_PORT\), or launch_instance a game/,
  );
  const named = await call(mcp, 'list_toolsets', { port: dead });
  expect(named.text).not.toMatch(/fallback/);
});

test('a free port picked for nothing still gets GameOffline', async () => {
  const p = await freePort();
  const r = await call(mcp, 'list_toolsets', { port: p });
  expect(r.text).toMatch(/^GameOffline: /);
});
