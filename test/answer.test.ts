/** Bounded answers (SPEC §5): never over the limit, always valid JSON, saying how to ask for less. */
import { truncateAnswer, okResult } from '../daemon/tools/answer.js';

test('a small answer passes unchanged, text and JSON alike', () => {
  const json = { port: 1, value: 'x' };
  expect(truncateAnswer(json, 1000)).toEqual({ json, text: JSON.stringify(json) });
});

test('a big state full of quotes and backslashes is cut to the limit, as valid JSON', () => {
  const state = { frame: 9, game: { lines: Array.from({ length: 2000 }, (_, i) => `say "hi" \\ ${i}`) }, ui: { screen: 'Menu' } };
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
