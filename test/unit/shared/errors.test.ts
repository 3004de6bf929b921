/**
 * The error texts (shared/errors.ts): every class reads `Class: what happened. What to do
 * next.`, with its facts in `data` for a program. These are what every agent sees on a failure.
 */
import {
  assertionFailed,
  BridgeError,
  callInterrupted,
  commandFailed,
  commandRejected,
  commandTimeout,
  ERROR_CLASSES,
  gameExited,
  gameOffline,
  isTimeout,
  notAGameSurface,
  notLaunchedHere,
  toBridgeError,
  usageError,
  waitTimeout,
  type ExitFacts,
} from '../../../shared/errors.js';

test("an error's text starts with its class", () => {
  expect(gameOffline(7820).text).toMatch(/^GameOffline: No game is answering on http:\/\/127\.0\.0\.1:7820\./);
});

test("an error's class is one of ERROR_CLASSES and its name", () => {
  const e = notAGameSurface(7820, 'GET /health returned HTTP 404');
  expect(ERROR_CLASSES).toContain(e.kind);
  expect(e.name).toBe('NotAGameSurface');
});

test('GameOffline says how to start the game with its launch hint, port filled in', () => {
  expect(gameOffline(7821, 'make run PORT={port}').message).toContain('Start it with `make run PORT=7821`');
});

test('GameOffline without a hint points at launch_instance and list_instances', () => {
  expect(gameOffline(7821).message).toMatch(/call launch_instance .*; call list_instances/);
});

test('a GameOffline from a timeout says how long it waited for which route', () => {
  const slow = gameOffline(7820, undefined, 5000, '/state');
  expect(slow.message).toContain('No game answered GET /state on http://127.0.0.1:7820 within 5000ms');
});

test('isTimeout tells a GameOffline from a timeout from a refused connection', () => {
  expect(isTimeout(gameOffline(7820, undefined, 5000))).toBe(true);
  expect(isTimeout(gameOffline(7820))).toBe(false);
});

test('a game that dropped the connection is said to have exited', () => {
  expect(gameOffline(7820, undefined, undefined, '/command', 'exited').message).toMatch(
    /dropped the connection during GET \/command and no longer answers: it exited or crashed/,
  );
});

test('CommandTimeout names the command, the port, the wait and what to read first', () => {
  expect(commandTimeout('drop', 7820, 2000, ' (last frame seen: 9)').message).toBe(
    "Command 'drop' was queued on port 7820 but was not applied within 2000ms (last frame seen: 9). " +
      'The game may be paused, frozen or busy: read get_state or health before retrying, or raise --timeout.',
  );
});

test('a wait that timed out shows the last value seen, cut to 200 characters', () => {
  const e = waitTimeout(7820, 'game.log', 'contains "x"', 100, 'y'.repeat(1000), 42);
  expect(e.kind).toBe('CommandTimeout');
  expect(e.message).toMatch(/last value: "y{199}/);
  expect(e.message).not.toMatch(/y{201}/);
  expect(e.message).toContain('at frame 42');
});

test('a wait on a path that is absent says the value is missing', () => {
  expect(waitTimeout(7820, 'ui.nope', 'exists', 100, undefined).message).toContain('last value: missing.');
});

test('CommandRejected lists what the game accepts', () => {
  expect(commandRejected('jmp', 7820, 'unknown command', ['jump', 'left']).message).toBe(
    "The game on port 7820 rejected 'jmp': unknown command. The game accepts: jump, left. " +
      'Check the name and arguments with describe_toolset.',
  );
});

test('CommandRejected without a reason says none was given', () => {
  expect(commandRejected('jump', 7820, '').message).toContain("rejected 'jump': no reason given.");
});

test('CommandFailed says nothing was done', () => {
  const e = commandFailed({ port: 7820, cmd: 'buy', commandId: 7, reason: 'not enough gold', events: [] });
  expect(e.message).toMatch(/refused 'buy' \(command 7\) when it applied it: not enough gold\. Nothing was done/);
  expect(e.data).toMatchObject({ kind: 'CommandFailed', applied: false });
});

test('AssertionFailed shows what is there and what was expected', () => {
  expect(assertionFailed(7820, 'ui.screen', '"Menu"', 'Game', 3).message).toMatch(
    /^On port 7820, ui\.screen is "Game" at frame 3; expected "Menu"\. Read more of the state/,
  );
});

test('AssertionFailed on an absent path says the path is absent', () => {
  expect(assertionFailed(7820, 'ui.nope', 'exists', undefined).message).toContain('nothing (the path is absent)');
});

test('NotLaunchedHere gives the call that closes the game itself', () => {
  expect(notLaunchedHere(7820).message).toContain(
    'call_tool {port: 7820, name: "raw_command", arguments: {cmd: "close"}}',
  );
});

test('CallInterrupted says the call may have been applied', () => {
  expect(callInterrupted("Command 'drop'").text).toBe(
    "CallInterrupted: Command 'drop' was interrupted: the bridge daemon restarted while it was in flight. " +
      'It may or may not have been applied; read the state (get_state) before retrying.',
  );
});

const exit = (lastLines: string[]): ExitFacts => ({
  port: 7820,
  pid: 4242,
  name: 'Crate Stack',
  exitCode: 3,
  signal: null,
  exitedAt: '2026-01-01T00:00:00.000Z',
  uptimeMs: 1200,
  lastLines,
  logFile: '/h/logs/game.log',
});

test('GameExited gives the restart and the last output', () => {
  const e = gameExited(exit(['boom']), 'The game on port 7820 exited with code 3.');
  expect(e.message).toContain('launch_instance {restart: 7820}');
  expect(e.message).toMatch(/\nLast output:\nboom$/);
});

test('GameExited with no output says the game wrote nothing', () => {
  const e = gameExited(exit([]), 'It exited.');
  expect(e.message).toMatch(/\(the game wrote nothing\)$/);
});

test('a usage error keeps the facts and the cause it is given', () => {
  const cause = new Error('inner');
  const e = usageError('Bad thing.', { field: '"x"' }, cause);
  expect(e.data).toEqual({ kind: 'BridgeUsageError', field: '"x"' });
  expect(e.cause).toBe(cause);
});

test('a thrown value that is not a BridgeError becomes a BridgeInternalError', () => {
  const e = toBridgeError(new TypeError('x is undefined'), () => undefined);
  expect(e.text).toMatch(/^BridgeInternalError: x is undefined\. This is a bug in game-bridge-mcp, not in the call/);
});

test('a BridgeInternalError is logged with its stack', () => {
  const logged: string[] = [];
  toBridgeError(new TypeError('x is undefined'), (l) => logged.push(l));
  expect(logged[0]).toMatch(/^unexpected error \(a bug\): TypeError: x is undefined\n\s+at /);
});

test('a BridgeError passes toBridgeError unchanged', () => {
  const e = gameOffline(1);
  expect(toBridgeError(e, () => undefined)).toBe(e);
});

test('BridgeError is an Error', () => {
  expect(usageError('x')).toBeInstanceOf(Error);
  expect(usageError('x')).toBeInstanceOf(BridgeError);
});
