/** The JUnit XML report (docs/TESTS.md): what CI servers read of a run, parsed back as they parse it. */
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { TestResult } from '../../../cli/saved-tests/replay.js';
import { junitXml } from '../../../cli/saved-tests/reporters.js';

const parse = (xml: string) => new XMLParser({ ignoreAttributes: false }).parse(xml);

const result = (name: string, ok: boolean, extra: Partial<TestResult> = {}): TestResult => ({
  file: join(process.cwd(), 'gamebridge-tests', `${name}.jsonl`),
  name,
  ok,
  ms: 1500,
  steps: [],
  ...extra,
});

test('a name and failure holding <&"> and control characters come back intact, less the control characters, from well-formed XML', () => {
  const odd = 'a <b> & "c"\u0001\u001b[31m\u0000 end';
  const xml = junitXml([
    result(odd, false, {
      failure: {
        line: 3,
        step: 'expect game.x equals 1',
        condition: 'game.x equals 1',
        expected: 'equals 1',
        actual: odd,
        message: `AssertionFailed: ${odd}\nmore`,
      },
    }),
  ]);
  expect(XMLValidator.validate(xml)).toBe(true);
  expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
  const c = parse(xml).testsuites.testsuite.testcase;
  expect(c['@_name']).toBe('a <b> & "c"[31m end');
  expect(c.failure['@_message']).toBe('AssertionFailed: a <b> & "c"[31m end');
  expect(c.failure['@_type']).toBe('expect');
  expect(c.failure['#text']).toContain('gamebridge-tests/a <b> & "c"[31m end.jsonl:3 expect game.x equals 1');
  expect(c.failure['#text']).toContain('actual: "a <b> & \\"c\\"\\u0001\\u001b[31m\\u0000 end"');
});

describe('a run of a passing sharded case, a failing one and a retried pass', () => {
  const failure = {
    line: 2,
    step: 'expect game.count equals 1',
    condition: 'game.count equals 1',
    expected: 'equals 1',
    actual: 2,
    message: 'AssertionFailed: count is 2',
  };
  const xml = junitXml([
    result('passes', true, { shard: '1/2' }),
    result('fails', false, { failure: { ...failure, condition: undefined, message: 'StepFailed: no game' } }),
    result('flaky', true, { flaky: { retries: 1, failure } }),
  ]);
  const doc = parse(xml).testsuites;
  const [passes, fails, flaky] = doc.testsuite.testcase;

  test('suite totals count its failures', () => {
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n/);
    expect([doc['@_tests'], doc['@_failures'], doc['@_errors'], doc['@_time']]).toEqual(['3', '1', '0', '4.500']);
    expect(doc.testsuite['@_skipped']).toBe('0');
    expect(fails.failure['@_type']).toBe('step');
    expect(fails.failure['@_message']).toBe('StepFailed: no game');
  });

  test('a shard is a property of its case', () => {
    expect(passes.properties).toEqual({ property: { '@_name': 'shard', '@_value': '1/2' } });
    expect(passes.failure).toBeUndefined();
    expect(passes['@_classname']).toBe(join('gamebridge-tests', 'passes.jsonl'));
    expect(passes['@_time']).toBe('1.500');
  });

  test('a retried pass carries a flakyFailure', () => {
    expect(flaky.failure).toBeUndefined();
    expect(flaky.flakyFailure['@_message']).toBe('AssertionFailed: count is 2');
    expect(flaky.flakyFailure['#text']).toMatch(/\npath: game\.count\nexpected: equals 1\nactual: 2/);
    expect(flaky.flakyFailure['#text']).not.toContain('condition:');
  });
});

test('an empty run is an empty suite', () => {
  const doc = parse(junitXml([])).testsuites;
  expect([doc['@_tests'], doc['@_failures']]).toEqual(['0', '0']);
  expect(doc.testsuite.testcase).toBeUndefined();
});
