/** A failed check under the ✗ line at a terminal (cli/saved-tests/run.ts): what it checked, said once. */
import { join } from 'node:path';
import { failureText } from '../../../../cli/saved-tests/run.js';
import type { TestResult } from '../../../../cli/saved-tests/replay.js';

const failed = (condition: string, expected: string): TestResult => ({
  file: join(process.cwd(), 'gamebridge-tests', 'drop.jsonl'),
  name: 'drop',
  ok: false,
  ms: 10,
  steps: [],
  failure: { line: 4, step: `expect ${condition}`, condition, expected, actual: 4, message: 'AssertionFailed: no' },
});

test('a condition that is its path and the expected value names the path, then expected and actual', () => {
  const text = failureText(failed('game.score equals 5', 'equals 5'));
  expect(text).toContain('\n    path:      game.score\n    expected:  equals 5\n    actual:    4\n');
  expect(text).not.toContain('condition:');
});

test('any other condition is printed whole', () => {
  const text = failureText(failed('screenshot menu within 0.01', 'within 0.01 of the baseline'));
  expect(text).toContain('\n    condition: screenshot menu within 0.01\n    expected:  within 0.01 of the baseline\n');
});
