/** Bounded answers (SPEC §5): never over the limit, always valid JSON, saying how to ask for less. */
import { errorResult, truncateAnswer, okResult } from '../../daemon/tools/answer.js';
import { commandRejected, toBridgeError } from '../../shared/errors.js';

test('a small answer passes unchanged, text and JSON alike', () => {
  const json = { port: 1, value: 'x' };
  expect(truncateAnswer(json, 1000)).toEqual({ json, text: JSON.stringify(json) });
});

test('a big state full of quotes and backslashes is cut to the limit, as valid JSON', () => {
  const state = {
    frame: 9,
    game: { lines: Array.from({ length: 2000 }, (_, i) => `say "hi" \\ ${i}`) },
    ui: { screen: 'Menu' },
  };
  for (const max of [500, 2000, 16000]) {
    const { json, text } = truncateAnswer({ port: 7820, tool: 'get_state', frame: 9, state }, max);
    expect(text.length).toBeLessThanOrEqual(max);
    expect(JSON.parse(text)).toEqual(json);
    expect(json).toMatchObject({ port: 7820, tool: 'get_state', frame: 9, truncated: true });
    expect(json.note).toMatch(/get_state \{path/);
  }
  const { json } = truncateAnswer({ port: 7820, state }, 16000);
  expect(json.paths).toEqual(['frame', 'game', 'ui']);
});

test('okResult gives the same JSON as structuredContent and as the one text block', () => {
  const r = okResult({ json: { a: 'b'.repeat(5000) } }, 1000);
  expect(r.content).toHaveLength(1);
  expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(r.structuredContent);
});

test('an error result carries the error data as structuredContent, keyed by kind', () => {
  const r = errorResult(commandRejected('jump', 7820, 'unknown command', ['drop', 'start']), 1000);
  expect(r.isError).toBe(true);
  expect((r.content[0] as { text: string }).text).toMatch(/^CommandRejected: /);
  expect(r.structuredContent).toEqual({
    kind: 'CommandRejected',
    port: 7820,
    cmd: 'jump',
    reason: 'unknown command',
    known: ['drop', 'start'],
  });
});

test('a thrown bug becomes BridgeInternalError with its cause, and is logged, not blamed on the caller', () => {
  const logged: string[] = [];
  const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
  const err = toBridgeError(bug, (l) => logged.push(l));
  expect(err.kind).toBe('BridgeInternalError');
  expect(err.cause).toBe(bug);
  expect(err.text).toMatch(/^BridgeInternalError: Cannot read properties.*a bug in game-bridge-mcp/);
  expect(logged.join('\n')).toContain('TypeError');
  const r = errorResult(bug, 1000, () => undefined);
  expect(r.structuredContent).toEqual({ kind: 'BridgeInternalError' });
});
