/** Bounded answers (docs/TOOLS.md): never over the limit, always valid JSON, saying how to ask for less. */
import { errorResult, truncateAnswer, okResult } from '../../../../daemon/tools/answer.js';
import { commandRejected, toBridgeError } from '../../../../shared/errors.js';

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

test('a thrown bug becomes BridgeInternalError with its cause, not blamed on the caller', () => {
  const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
  const err = toBridgeError(bug, () => undefined);
  expect(err.kind).toBe('BridgeInternalError');
  expect(err.cause).toBe(bug);
  expect(err.text).toMatch(/^BridgeInternalError: Cannot read properties.*a bug in game-bridge-mcp/);
  const r = errorResult(bug, 1000, () => undefined);
  expect(r.structuredContent).toEqual({ kind: 'BridgeInternalError' });
});

test('a thrown bug is logged', () => {
  const logged: string[] = [];
  toBridgeError(new TypeError("Cannot read properties of undefined (reading 'x')"), (l) => logged.push(l));
  expect(logged.join('\n')).toContain('TypeError');
});

describe('what a cut answer keeps and offers', () => {
  const big = 'x'.repeat(5000);

  test('only small scalars are kept whole: long strings, objects and arrays go into the preview', () => {
    const long = 'y'.repeat(300);
    const { json } = truncateAnswer({ port: 1, ok: true, none: null, long, list: [1, 2], state: { a: big } }, 2000);
    expect(json).toMatchObject({ port: 1, ok: true, none: null, truncated: true });
    expect(json).not.toHaveProperty('long');
    expect(json).not.toHaveProperty('list');
    expect(json).not.toHaveProperty('state');
  });

  test('the preview is the start of the whole answer, as large as the limit allows', () => {
    const whole = { port: 1, state: { a: big } };
    const { json, text } = truncateAnswer(whole, 1000);
    const preview = json.preview as string;
    expect(JSON.stringify(whole).startsWith(preview)).toBe(true);
    expect(preview.length).toBeGreaterThan(400);
    expect(text.length).toBeLessThanOrEqual(1000);
    expect(json.note).toBe(
      `Answer cut to about 1000 of ${JSON.stringify(whole).length} characters. Ask for less: get_state {path: "game.someKey"} ` +
        'reads one part of the state; "paths" lists what is there.',
    );
  });

  test("paths: a state's keys as they are, a read value's under its path, other objects under their name", () => {
    const { json } = truncateAnswer(
      {
        path: 'game.board',
        value: { rows: big, cols: 3 },
        extra: { k: 1 },
        list: [{ a: 1 }],
        none: null,
        state: { s: 1 },
      },
      3000,
    );
    expect(json.paths).toEqual(['game.board.rows', 'game.board.cols', 'extra.k', 's']);
    // without a path, a value is just another object
    expect(truncateAnswer({ value: { v: big } }, 3000).json.paths).toEqual(['value.v']);
  });

  const hundredKeys = () => Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`key${i}`, big.slice(0, 100)]));

  test('at most 60 paths are offered', () => {
    const roomy = truncateAnswer({ state: hundredKeys() }, 4000).json.paths as string[];
    expect(roomy).toHaveLength(60);
    expect(roomy[0]).toBe('key0');
  });

  test('fewer than 60 paths are offered when even they do not fit', () => {
    const state = hundredKeys();
    const tight = truncateAnswer({ state }, 400);
    expect(tight.text.length).toBeLessThanOrEqual(400);
    expect((tight.json.paths as string[]).length).toBeLessThan(60);
    expect(tight.json.preview).toBe('');
    expect(JSON.parse(tight.text)).toEqual(tight.json);
  });

  test('an answer is cut only once it is over the limit', () => {
    const json = { port: 1, s: 'abc' };
    const n = JSON.stringify(json).length;
    expect(truncateAnswer(json, n).json).toBe(json);
    expect(truncateAnswer(json, n - 1).json.truncated).toBe(true);
  });

  test('okResult adds each image after the text block, in order', () => {
    const r = okResult(
      {
        json: { port: 1 },
        images: [
          { data: 'AAA', mimeType: 'image/png' },
          { data: 'BBB', mimeType: 'image/jpeg' },
        ],
      },
      1000,
    );
    expect(r.content).toEqual([
      { type: 'text', text: '{"port":1}' },
      { type: 'image', data: 'AAA', mimeType: 'image/png' },
      { type: 'image', data: 'BBB', mimeType: 'image/jpeg' },
    ]);
    expect(r.structuredContent).toEqual({ port: 1 });
    expect(r).not.toHaveProperty('isError');
  });

  test("an error's facts are bounded too", () => {
    const r = errorResult(commandRejected('x'.repeat(3000), 7820, 'unknown command', []), 500);
    expect(JSON.stringify(r.structuredContent).length).toBeLessThanOrEqual(500);
    expect(r.structuredContent).toMatchObject({ kind: 'CommandRejected', port: 7820, truncated: true });
  });
});
