/**
 * Each engine's error report read from its real output (test/fixtures/error-output/: each
 * example made to raise in its update, its output as the launcher's log caught it), and what is
 * not an error: the bridge's own lines, a bare "Error:" line without a stack, a page's favicon.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorLines } from '../../../../daemon/launcher/error-lines.js';
import type { ErrorSighting } from '../../../../shared/game-errors.js';

const FIXTURES = join(process.cwd(), 'test/fixtures/error-output');

function read(text: string): ErrorSighting[] {
  const r = new ErrorLines();
  const out = text.split('\n').flatMap((l) => r.feed(l));
  return [...out, ...r.flush()];
}
const fixture = (name: string) => read(readFileSync(join(FIXTURES, name), 'utf8'));

test('a Python traceback is one error: its last line the message, the frames its stack', () => {
  const [e, ...more] = fixture('python.txt');
  expect(more).toEqual([]);
  expect(e).toMatchObject({ message: 'ZeroDivisionError: division by zero', source: 'output', frame: null });
  expect(e!.stack).toMatch(/^File ".*py_err\.py", line 3, in <module>/);
});

test("pygame's Frog Hop raising in its update is a TypeError with the game's line in its stack", () => {
  const [e, ...more] = fixture('pygame.txt');
  expect(more).toEqual([]);
  expect(e!.message).toBe("TypeError: unsupported operand type(s) for +: 'float' and 'NoneType'");
  expect(e!.stack).toContain('game.py", line 85, in step');
});

test("Node's uncaught error is its message with its `at` lines", () => {
  const [e, ...more] = fixture('node.txt');
  expect(more).toEqual([]);
  expect(e!.message).toBe("TypeError: Cannot read properties of undefined (reading 'x')");
  expect(e!.stack!.split('\n')[0]).toBe('at update (/tmp/errcap/node_err.js:1:38)');
});

test("LÖVE's error handler is the error without its `Error:`, and its Lua traceback", () => {
  const [e, ...more] = fixture('love.txt');
  expect(more).toEqual([]);
  expect(e!.message).toBe("main.lua:143: attempt to index local 't' (a nil value)");
  expect(e!.stack).toContain("main.lua:143: in function 'update'");
});

test("Godot's SCRIPT ERROR and ERROR lines are errors, each with its At line", () => {
  const errors = fixture('godot.txt');
  expect(errors.map((e) => e.message)).toEqual([
    "_physics_process: Invalid call. Nonexistent function 'jump' in base 'Nil'.",
    'call: the walker left the track',
    'get_node: Node not found: NoSuchNode.',
    "_physics_process: Attempt to call function 'show' in base 'null instance' on a null instance.",
  ]);
  expect(errors[0]!.stack).toBe('At: res://Main.gd:62.');
});

test("Mono's unhandled exception is one error, though Mono prints it twice", () => {
  const [e, ...more] = fixture('mono.txt');
  expect(more).toEqual([]);
  expect(e!.message).toBe('System.NullReferenceException: Object reference not set to an instance of an object');
  expect(e!.stack!.split('\n')[0]).toMatch(/^at Walker\.Simulate \(\)/);
});

test("a page's uncaught error and console.error are the page's, the favicon's absence is not", () => {
  const errors = read(
    [
      'console.log: ready',
      'uncaught TypeError: Cannot read properties of null (reading "score")',
      '    at onClick (http://127.0.0.1:9000/game.js:12:5)',
      'console.error: the level failed to load',
      'console.error: Failed to load resource: http://127.0.0.1:9000/favicon.ico 404',
      'failed to load http://127.0.0.1:9000/favicon.ico: net::ERR_ABORTED',
    ].join('\n'),
  );
  expect(errors).toEqual([
    {
      frame: null,
      message: 'TypeError: Cannot read properties of null (reading "score")',
      stack: 'at onClick (http://127.0.0.1:9000/game.js:12:5)',
      source: 'page',
    },
    { frame: null, message: 'the level failed to load', source: 'console' },
  ]);
});

test("a bare Error: line without a stack, and the bridge's own lines, are not errors", () => {
  expect(read('Error: no save file yet, starting fresh\n[game-bridge] Error: x\nok')).toEqual([]);
});

test('a report split across two reads is read whole', () => {
  const r = new ErrorLines();
  expect(r.feed('Traceback (most recent call last):')).toEqual([]);
  expect(r.feed('  File "game.py", line 2, in step')).toEqual([]);
  expect(r.feed('KeyError: 7')).toEqual([
    { frame: null, message: 'KeyError: 7', stack: 'File "game.py", line 2, in step', source: 'output' },
  ]);
});
