/** The words every schema check uses (shared/schema-words.ts): a type, a bound, a near miss. */
import { z } from 'zod/v4';
import { clientJsonSchema, mustBe, nearMiss } from '../../../shared/schema-words.js';

const issueOf = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error!.issues[0];

test('a wrong type is said with its article and the value given', () => {
  expect(mustBe(issueOf(z.number(), 'x'), 'x')).toBe('must be a number, got "x"');
});

test('an integer is asked for as an integer', () => {
  expect(mustBe(issueOf(z.int(), 1.5), 1.5)).toBe('must be an integer, got 1.5');
});

test('an inclusive bound says "at least"', () => {
  expect(mustBe(issueOf(z.number().min(1), 0), 0)).toBe('must be at least 1');
});

test('an exclusive bound says "more than"', () => {
  expect(mustBe(issueOf(z.number().positive(), 0), 0)).toBe('must be more than 0');
});

test('a value shown in an error is cut to 80 characters', () => {
  expect(mustBe(issueOf(z.number(), 'y'.repeat(500)), 'y'.repeat(500))!.length).toBeLessThan(120);
});

test('an issue with no fields to word gives no sentence', () => {
  expect(
    mustBe(
      issueOf(
        z.string().refine(() => false, 'no'),
        'a',
      ),
      'a',
    ),
  ).toBeUndefined();
});

test.each([
  ['comand', 'command'],
  ['PortRange', 'portRange'],
  ['readyTimeoutMS', 'readyTimeoutMs'],
  ['profiels', 'profiles'],
])('%s is a near miss of %s', (typed, meant) => {
  expect(nearMiss(typed, ['command', 'cwd', 'portRange', 'readyTimeoutMs', 'env', 'profiles', 'web'])).toBe(meant);
});

test('a name close to nothing known has no near miss', () => {
  expect(nearMiss('zzzzzz', ['command', 'cwd'])).toBeUndefined();
});

test('a name under three letters has no near miss', () => {
  expect(nearMiss('y', ['x'])).toBeUndefined();
});

describe('the JSON Schema a client reads', () => {
  test('carries no $schema and no "any extra key is fine"', () => {
    expect(clientJsonSchema(z.looseObject({ a: z.string() }))).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
    });
  });

  test('an integer carries no safe-integer bounds zod adds', () => {
    expect(clientJsonSchema(z.int())).toEqual({ type: 'integer' });
  });

  test('an integer keeps the bounds it declares', () => {
    expect(clientJsonSchema(z.int().min(1).max(65535))).toEqual({ type: 'integer', minimum: 1, maximum: 65535 });
  });

  test('a map carries no "keys are strings"', () => {
    expect(clientJsonSchema(z.record(z.string(), z.number()))).toEqual({
      type: 'object',
      additionalProperties: { type: 'number' },
    });
  });

  test('an argument named like a keyword keeps its place among the properties', () => {
    const schema = clientJsonSchema(z.object({ $schema: z.string(), additionalProperties: z.object({}) }));
    expect(Object.keys(schema.properties as object)).toEqual(['$schema', 'additionalProperties']);
  });
});
