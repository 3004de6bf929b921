/** A page's JSON Schema: its patterns kept from zod, and checked in the linear-time engine where they apply. */
import { z } from 'zod/v4';
import { patternMiss, withoutPatterns } from '../../../../daemon/bridge/page-schema.js';

const EVIL = '^(a+)+$';

test('no pattern is left anywhere a schema can be, while data that looks like one stays', () => {
  const schema = {
    type: 'object',
    properties: {
      word: { type: 'string', pattern: EVIL },
      list: { type: 'array', items: { type: 'string', pattern: EVIL } },
      either: { anyOf: [{ type: 'string', pattern: EVIL }, { type: 'number' }] },
      keyed: { type: 'object', propertyNames: { pattern: EVIL }, additionalProperties: { pattern: EVIL } },
      pattern: { type: 'string', default: 'pattern' },
    },
    $defs: { d: { type: 'string', pattern: EVIL } },
    patternProperties: { [EVIL]: { type: 'string' } },
    additionalProperties: false,
    examples: [{ pattern: EVIL }],
  };
  const out = JSON.stringify(withoutPatterns(schema));
  expect(out.match(/\^\(a\+\)\+\$/g)).toEqual([EVIL]); // only inside `examples`, which is data
  expect(out).toContain('"pattern":{"type":"string","default":"pattern"}');
  expect(out).not.toContain('additionalProperties":false');
});

test('zod reads the schema without its patterns, so the evil word costs it nothing', () => {
  const schema = { type: 'object', properties: { word: { type: 'string', pattern: EVIL } } };
  const read = z.fromJSONSchema(withoutPatterns(schema) as Parameters<typeof z.fromJSONSchema>[0]);
  expect(read.safeParse({ word: `${'a'.repeat(40)}!` }).success).toBe(true);
});

test('a string that fails its pattern is named by its path, at once, however the pattern backtracks', () => {
  const schema = { type: 'object', properties: { word: { type: 'string', pattern: EVIL } } };
  expect(patternMiss(schema, { word: `${'a'.repeat(40)}!` }, 'spell')).toEqual({ path: 'word', pattern: EVIL });
  expect(patternMiss(schema, { word: 'a'.repeat(40) }, 'spell')).toBeUndefined();
});

test('patterns apply through items, additionalProperties, propertyNames, allOf and local $refs', () => {
  const schema = {
    type: 'object',
    properties: {
      list: { type: 'array', items: { $ref: '#/$defs/digits' } },
      bag: { type: 'object', additionalProperties: { pattern: '^x' }, propertyNames: { pattern: '^k' } },
      both: { allOf: [{ pattern: 'a' }, { pattern: 'b' }] },
    },
    $defs: { digits: { type: 'string', pattern: '^[0-9]+$' } },
  };
  expect(patternMiss(schema, { list: ['12', 'x3'] }, 't')).toEqual({ path: 'list.1', pattern: '^[0-9]+$' });
  expect(patternMiss(schema, { bag: { k1: 'y' } }, 't')).toEqual({ path: 'bag.k1', pattern: '^x' });
  expect(patternMiss(schema, { bag: { z: 'x' } }, 't')).toEqual({ path: 'bag.z', pattern: '^k' });
  expect(patternMiss(schema, { both: 'ab' }, 't')).toBeUndefined();
  expect(patternMiss(schema, { both: 'a' }, 't')).toEqual({ path: 'both', pattern: 'b' });
});

test('anyOf holds when a branch of the value type holds', () => {
  const schema = { anyOf: [{ type: 'string', pattern: '^a' }, { type: 'string', pattern: '^b' }, { type: 'number' }] };
  expect(patternMiss(schema, 'bee', 't')).toBeUndefined();
  expect(patternMiss(schema, 'cat', 't')).toEqual({ path: '', pattern: '^a' });
  expect(patternMiss(schema, 3, 't')).toBeUndefined();
});

test('a pattern the linear engine cannot read is left to the page', () => {
  const schema = { properties: { w: { type: 'string', pattern: '^(a)\\1$' } } };
  expect(patternMiss(schema, { w: 'ab' }, 't')).toBeUndefined();
});

test('a string too long to match on the shared daemon is a usage error naming the argument', () => {
  const schema = { properties: { w: { type: 'string', pattern: '^[a-z]+$' } } };
  expect(() => patternMiss(schema, { w: 'a'.repeat(200_000) }, 'spell')).toThrow(
    /^spell: the page's pattern for 'w' would cost too much on the shared daemon: .* Give 'w' a shorter value\.$/,
  );
});
