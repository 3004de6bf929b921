/**
 * Command results through the real proxy + daemon and the SDK client: when the game's
 * `commandResults` say the awaited command failed, every path that confirms a command answers
 * CommandFailed with the game's words, `applied: false` and the state after it; a command that
 * succeeded is still applied, and a game without results behaves as before.
 */
import { cleanedAfterAll, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { Reaper, tempHome } from './helpers/procs.js';
import { startTreeGame } from './helpers/tree-game.js';

const reaper = new Reaper();
const { homes, handles } = cleanedAfterAll();
let port: number;
let h: McpHandle;

beforeAll(async () => {
  const home = tempHome('gb-results-');
  homes.push(home);
  port = await startTreeGame(reaper);
  h = await connect({ args: ['--no-scan'], env: { GAME_BRIDGE_HOME: home } });
  handles.push(h);
}, 60000);

afterAll(() => reaper.reap());

test.each([
  ['a manifest tool through call_tool', 'boom', {}, 'boom', 'the boom failed: no fuel left'],
  ['a passthrough command', 'fizzle', {}, 'fizzle', 'fizzled out'],
  ['raw_command', 'raw_command', { cmd: 'boom' }, 'boom', 'the boom failed: no fuel left'],
  [
    'a reserved ui command',
    'raw_command',
    { cmd: 'ui.activate', args: { id: 'opts' } },
    'ui.activate',
    "'Options' is disabled",
  ],
])(
  '%s the game refuses on its thread answers CommandFailed with its words',
  async (_what, name, args, cmd, words) => {
    const r = await gameCall(h, port, name, args);
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(
      new RegExp(`^CommandFailed: The game on port ${port} refused '${cmd.replace('.', '\\.')}' \\(command \\d+\\)`),
    );
    expect(r.text).toContain(words);
    expect(r.json).toMatchObject({ kind: 'CommandFailed', port, cmd, applied: false, reason: words, sessionEpoch: 1 });
    expect(typeof r.json.commandId).toBe('number');
    expect(typeof r.json.frame).toBe('number');
    expect(r.json.game).toMatchObject({ started: false });
  },
  30000,
);

test('a command the game applied without failure is still applied', async () => {
  const r = await gameCall(h, port, 'noop');
  expect(r.isError).toBe(false);
  expect(r.json).toMatchObject({ applied: true, confirmation: 'completedCommandId' });
}, 30000);
