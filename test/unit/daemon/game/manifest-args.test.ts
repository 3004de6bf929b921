/**
 * A game tool's arguments as serializers write them (docs/CONTRACT.md, `GET /tools`), one rule
 * at a time: every type spelling, where a description, a requirement and a default come from,
 * what is refused and why; and how a tool is found by a bare or qualified name.
 */
import { defaultText, parseArgs, str, truthy } from '../../../../daemon/game/manifest-args.js';
import { findTool, toolInputSchema } from '../../../../daemon/game/manifest-tools.js';
import type { GameTool, Manifest, ToolArg } from '../../../../daemon/game/types.js';

const one = (arg: unknown): ToolArg => parseArgs({ args: [arg] })[0];

test.each([
  ['string', ['string', 'str', 'text', 'char', 'enum']],
  ['number', ['number', 'float', 'double', 'real', 'decimal', 'num']],
  ['integer', ['integer', 'int', 'long', 'short', 'int32', 'int64']],
  ['boolean', ['boolean', 'bool']],
  ['object', ['object', 'dict', 'map', 'table', 'json']],
  ['array', ['array', 'list', 'vector', 'tuple']],
  ['any', ['any', 'whatever', '', 'Vector3']],
])('type spellings for %s, any case, spaces around', (type, spellings) => {
  for (const s of spellings) {
    expect(one({ name: 'a', type: s }).type).toBe(type);
    expect(one({ name: 'a', type: ` ${s.toUpperCase()} ` }).type).toBe(type);
  }
});

test('a type that is not text is any', () => {
  expect(one({ name: 'a', type: 3 }).type).toBe('any');
  expect(one({ name: 'a' }).type).toBe('any');
});

test('the description comes from description, else desc, else help, as text', () => {
  expect(one({ name: 'a', description: 'd', desc: 'x', help: 'y' }).description).toBe('d');
  expect(one({ name: 'a', desc: 'x', help: 'y' }).description).toBe('x');
  expect(one({ name: 'a', help: 'y' }).description).toBe('y');
  expect(one({ name: 'a', help: 7 }).description).toBe('7');
  expect(one({ name: 'a', description: { no: 1 } }).description).toBe('');
});

test('an argument is required when required is true or "true" in any case, or optional is given and not true', () => {
  expect(one({ name: 'a', required: true }).required).toBe(true);
  expect(one({ name: 'a', required: ' TRUE ' }).required).toBe(true);
  expect(one({ name: 'a', required: 'yes' }).required).toBe(false);
  expect(one({ name: 'a', required: 1 }).required).toBe(false);
  expect(one({ name: 'a', optional: false }).required).toBe(true);
  expect(one({ name: 'a', optional: 'false' }).required).toBe(true);
  expect(one({ name: 'a', optional: true }).required).toBe(false);
  expect(one({ name: 'a', optional: 'True' }).required).toBe(false);
  expect(one({ name: 'a' }).required).toBe(false);
});

test('a default becomes text', () => {
  expect(defaultText('x')).toBe('x');
  expect(defaultText(0)).toBe('0');
  expect(defaultText(false)).toBe('false');
  expect(defaultText([1, 'a'])).toBe('[1,"a"]');
  expect(one({ name: 'a', default: 0.5 })).toEqual({
    name: 'a',
    type: 'any',
    description: '',
    required: false,
    default: '0.5',
  });
});

test('null, absent or unwritable defaults become none', () => {
  expect(defaultText(null)).toBeUndefined();
  expect(defaultText(undefined)).toBeUndefined();
  const loop: Record<string, unknown> = {};
  loop.self = loop;
  expect(defaultText(loop)).toBeUndefined();
  expect(one({ name: 'a', default: null })).not.toHaveProperty('default');
});

test('a bare name, trimmed, is an optional argument of any type', () => {
  expect(one('  speed ')).toEqual({ name: 'speed', type: 'any', description: '', required: false });
});

test('an argument object has its name trimmed', () => {
  expect(one({ name: ' x ' }).name).toBe('x');
});

test('the map form: name → type, name → nothing, name → object (its key is the name)', () => {
  const args = parseArgs({ parameters: { x: 'int', y: null, z: { type: 'bool', name: 'ignored', required: true } } });
  expect(args).toEqual([
    { name: 'x', type: 'integer', description: '', required: false },
    { name: 'y', type: 'any', description: '', required: false },
    { name: 'z', type: 'boolean', description: '', required: true },
  ]);
});

test('arguments are looked for under args, arguments, params, parameters, in that order', () => {
  expect(parseArgs({ args: ['a'], arguments: ['b'] })[0].name).toBe('a');
  expect(parseArgs({ arguments: ['b'], params: ['c'] })[0].name).toBe('b');
  expect(parseArgs({ params: ['c'], parameters: ['d'] })[0].name).toBe('c');
  expect(parseArgs({ parameters: ['d'] })[0].name).toBe('d');
  expect(parseArgs({})).toEqual([]);
  expect(parseArgs({ args: null })).toEqual([]);
});

test('what cannot be read is refused with the reason', () => {
  expect(() => parseArgs({ args: 'x' })).toThrow('its arguments are a string, not a list or a map');
  expect(() => parseArgs({ args: 3 })).toThrow('its arguments are a number, not a list or a map');
  expect(() => one(null)).toThrow('an argument is null, not an object or a name');
  expect(() => one(4)).toThrow('an argument is number, not an object or a name');
  expect(() => one('  ')).toThrow('an argument has an empty name');
  expect(() => one({ type: 'int' })).toThrow('an argument has no name');
  expect(() => one({ name: '   ' })).toThrow('an argument has no name');
  expect(() => parseArgs({ args: { a: 5 } })).toThrow('an argument is number, not an object or a name');
  expect(() => parseArgs({ args: ['a', { name: ' a' }] })).toThrow("argument 'a' is listed twice");
});

test('str and truthy: the small readers', () => {
  expect(str('a')).toBe('a');
  expect(str(2)).toBe('2');
  expect(str(true)).toBeUndefined();
  expect(truthy(true)).toBe(true);
  expect(truthy('tRuE')).toBe(true);
  expect(truthy('1')).toBe(false);
  expect(truthy(1)).toBe(false);
});

const tool = (name: string, toolset: string, args: ToolArg[] = []): GameTool => ({
  name,
  toolset,
  args,
  description: '',
  readOnly: false,
});

const manifest: Manifest = {
  game: {},
  source: 'game',
  warnings: [],
  toolsets: [
    { name: 'bridge', description: '', tools: [tool('get_state', 'bridge'), tool('screenshot', 'bridge')] },
    { name: 'play', description: '', tools: [tool('jump', 'play'), tool('get_state', 'play')] },
    { name: 'debug', description: '', tools: [tool('jump', 'debug'), tool('warp', 'debug')] },
  ],
};

test("a bare name prefers the game's toolsets, the first listing it, then the bridge's", () => {
  expect(findTool(manifest, 'get_state')?.toolset).toBe('play');
  expect(findTool(manifest, 'jump')?.toolset).toBe('play');
  expect(findTool(manifest, 'screenshot')?.toolset).toBe('bridge');
  expect(findTool(manifest, 'nope')).toBeUndefined();
});

test('a qualified name picks its toolset, with a dot or a slash', () => {
  expect(findTool(manifest, 'debug.jump')?.toolset).toBe('debug');
  expect(findTool(manifest, 'debug/jump')?.toolset).toBe('debug');
  expect(findTool(manifest, 'bridge.get_state')?.toolset).toBe('bridge');
  expect(findTool(manifest, 'jump', 'debug')?.toolset).toBe('debug');
  expect(findTool(manifest, 'play.warp')).toBeUndefined();
  expect(findTool(manifest, 'debug.jump', 'debug')).toBeUndefined(); // qualified once only
});

test('the schema: types except any, defaults as a sentence, required only when some are', () => {
  const schema = toolInputSchema(
    tool('t', 'play', [
      { name: 'a', type: 'any', description: '', required: false },
      { name: 'b', type: 'number', description: 'Speed', required: true, default: '2' },
      { name: 'c', type: 'string', description: 'Name!', required: false, default: 'x' },
      { name: 'd', type: 'boolean', description: '  ', required: false, default: 'true' },
      { name: 'e', type: 'integer', description: ' Count ', required: false },
    ]),
  );
  expect(schema).toEqual({
    type: 'object',
    properties: {
      a: {},
      b: { type: 'number', description: 'Speed. Default: 2.' },
      c: { type: 'string', description: 'Name! Default: x.' },
      d: { type: 'boolean', description: 'Default: true.' },
      e: { type: 'integer', description: 'Count' },
    },
    required: ['b'],
  });
  expect(toolInputSchema(tool('t', 'play'))).toEqual({ type: 'object', properties: {} });
});
