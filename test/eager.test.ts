/**
 * --eager (docs/TOOLS.md) through the real proxy and daemon: every live game's tools advertised
 * flatly under names that cannot collide (`g<port>_<toolset>_<tool>`), and
 * `notifications/tools/list_changed` when a game is launched, appears in the scan range, or stops.
 */
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { call, connect, type McpHandle } from './helpers/mcp.js';
import { holdRange, type HeldPorts } from './helpers/ports.js';
import { writeProject } from './helpers/project.js';
import { Reaper, removeDir, startExampleGame, stopDaemon, tempHome, waitFor } from './helpers/procs.js';

const reaper = new Reaper();
let home: string;
let project: string;
let ports: number[];
let held: HeldPorts;
let mcp: McpHandle;
let changes = 0;

const toolNames = async () => (await mcp.client.listTools()).tools.map((t) => t.name);
const waitChange = async (after: number) => waitFor('tools/list_changed', () => changes > after, 20000);

beforeAll(async () => {
  home = tempHome();
  project = tempHome('gb-eager-project-');
  // ports[0]: a game already running; ports[1]: one that starts later in the scan range; ports[2..3]:
  // launches. Each stays held until its test binds it.
  held = await holdRange(4);
  ports = held.ports;
  writeProject(project, { ports: ports.slice(2), gameArgs: '--name "Crate Stack B"' });
  await held.release(ports[0]);
  await startExampleGame(reaper, ports[0], [], { GAME_BRIDGE_HOME: home });
  mcp = await connect({
    args: ['--eager', '--scan-range', `${ports[0]}-${ports[1]}`],
    env: { GAME_BRIDGE_HOME: home },
    cwd: project,
  });
  mcp.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
}, 60000);

afterAll(async () => {
  await held?.release();
  await mcp?.close();
  stopDaemon(home);
  await reaper.reap();
  removeDir(home);
  removeDir(project);
});

test('the MCP tools plus every tool of the running game, flat', async () => {
  const names = await toolNames();
  expect(names).toEqual(
    expect.arrayContaining([
      'list_instances',
      'call_tool',
      `g${ports[0]}_play_drop`,
      `g${ports[0]}_debug_peek`,
      `g${ports[0]}_bridge_get_state`,
    ]),
  );
  const { tools } = await mcp.client.listTools();
  const drop = tools.find((t) => t.name === `g${ports[0]}_play_drop`)!;
  expect(drop.description).toMatch(new RegExp(`Crate Stack on port ${ports[0]}, toolset play`));
  expect(drop.inputSchema.required).toEqual(['x']);
  expect(tools.find((t) => t.name === `g${ports[0]}_debug_peek`)?.annotations?.readOnlyHint).toBe(true);
});

describe('a second game launched', () => {
  let port = 0;
  test('sends tools/list_changed', async () => {
    const before = changes;
    await held.release(ports[2], ports[3]);
    const launched = await call(mcp, 'launch_instance');
    expect(launched.isError).toBe(false);
    port = launched.json.port as number;
    expect(port).toBe(ports[2]);
    await waitChange(before);
  });

  test('has its tools work under their own names', async () => {
    const names = await toolNames();
    expect(names).toEqual(expect.arrayContaining([`g${ports[0]}_play_drop`, `g${port}_play_drop`]));
    expect(new Set(names).size).toBe(names.length); // nothing collides

    const start = await call(mcp, `g${port}_play_start`);
    expect(start.json).toMatchObject({ port, applied: true, screen: 'GameScreen' });
    const drop = await call(mcp, `g${port}_play_drop`, { x: 40, settle: false });
    expect(drop.json).toMatchObject({ port, applied: true, confirmation: 'completedCommandId' });
    expect(drop.json.game.crates).toHaveLength(1);
    const other = await call(mcp, `g${ports[0]}_bridge_get_state`, { path: 'ui.screen' });
    expect(other.json).toMatchObject({ port: ports[0], value: 'MenuScreen' }); // the first game was not touched
  });

  test('takes its tools away with tools/list_changed when stopped', async () => {
    const beforeStop = changes;
    const stopped = await call(mcp, 'stop_instance', { port });
    expect(stopped.json.stopped).toBe(true);
    await waitChange(beforeStop);
    expect(await toolNames()).not.toContain(`g${port}_play_drop`);
  });
});

test('a game that starts in the scan range on its own is noticed too', async () => {
  const before = changes;
  await held.release(ports[1]);
  await startExampleGame(reaper, ports[1], ['--name', 'Crate Stack C'], { GAME_BRIDGE_HOME: home });
  await waitChange(before);
  expect(await toolNames()).toContain(`g${ports[1]}_play_drop`);
});

test('an unknown flat name is a usage error naming call_tool', async () => {
  const r = await call(mcp, 'g1_play_nothing');
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(/^BridgeUsageError: There is no MCP tool 'g1_play_nothing'.*call_tool/);
});
