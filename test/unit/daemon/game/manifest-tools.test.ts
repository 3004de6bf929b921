/**
 * The JSON Schema a client reads for a game tool's arguments (daemon/game/manifest-tools.ts):
 * one property per argument row, in the row's type, required as the row says.
 */
import { toolInputSchema } from '../../../../daemon/game/manifest-tools.js';
import type { GameTool, ToolArg } from '../../../../daemon/game/types.js';

const tool = (args: ToolArg[]): GameTool => ({ name: 't', description: '', toolset: 'play', readOnly: false, args });
const arg = (name: string, type: ToolArg['type'], required = false): ToolArg => ({
  name,
  type,
  description: '',
  required,
});

test('an integer argument is an integer without bounds it never declared', () => {
  expect(toolInputSchema(tool([arg('n', 'integer')])).properties.n).toEqual({ type: 'integer' });
});

test('an object argument is an object of any keys', () => {
  expect(toolInputSchema(tool([arg('o', 'object')])).properties.o).toEqual({ type: 'object' });
});

test('an array argument is an array of anything', () => {
  expect(toolInputSchema(tool([arg('l', 'array')])).properties.l).toEqual({ type: 'array', items: {} });
});

test('a required argument of any type is listed as required', () => {
  expect(toolInputSchema(tool([arg('a', 'any', true), arg('b', 'string')])).required).toEqual(['a']);
});

test('a page tool keeps the JSON Schema the page gave', () => {
  const inputSchema = { type: 'object', properties: { q: { type: 'string', pattern: '^a' } } };
  expect(toolInputSchema({ ...tool([]), inputSchema })).toBe(inputSchema);
});
