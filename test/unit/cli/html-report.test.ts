/** The HTML report (docs/TESTS.md, "Running"): what a person reads of a failed expect. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestResult } from '../../../cli/saved-tests/replay.js';
import { writeReport } from '../../../cli/saved-tests/reporters.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gb-html-report-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const failed = (failure: TestResult['failure']): TestResult => ({
  file: join(dir, 'gamebridge-tests', 'drop.jsonl'),
  name: 'drop',
  ok: false,
  ms: 1500,
  steps: [{ line: 3, text: 'expect game.score equals 25', ok: false, ms: 2 }],
  failure,
});

const report = (r: TestResult) => {
  writeReport('html', join(dir, 'report'), [r]);
  return readFileSync(join(dir, 'report', 'index.html'), 'utf8');
};

test('a failed expect names the path it checked once, beside what was expected and what was there, not the condition that repeats the expected', () => {
  const page = report(
    failed({
      line: 3,
      step: 'expect game.score equals 25',
      kind: 'value',
      message: 'AssertionFailed: On port 7840, game.score is 20 at frame 10; expected equals 25.',
      condition: 'game.score equals 25',
      expected: 'equals 25',
      actual: 20,
    }),
  );
  const rows = [...page.matchAll(/<tr><th>(\w+)<\/th><td><code>([^<]*)<\/code><\/td><\/tr>/g)].map(([, k, v]) => [
    k,
    v,
  ]);
  expect(rows).toEqual([
    ['path', 'game.score'],
    ['expected', 'equals 25'],
    ['actual', '20'],
  ]);
});

test('a screenshot check keeps its condition, which says more than its expected', () => {
  const page = report(
    failed({
      line: 3,
      step: 'expect screenshot menu.png',
      kind: 'value',
      message: 'differ',
      condition: 'screenshot menu.png within 0.01',
      expected: 'at most 1.00% of the pixels differ',
      actual: '4.00% differ',
    }),
  );
  expect(page).toContain('<tr><th>condition</th><td><code>screenshot menu.png within 0.01</code></td></tr>');
});

test("the run's time is written as a person reads it, with its zone, and kept exact for a machine", () => {
  const page = report(failed(undefined));
  const m = /<time datetime="([^"]+)">([^<]+)<\/time>/.exec(page);
  expect(m).not.toBeNull();
  expect(Math.abs(Date.parse(m![1]) - Date.now())).toBeLessThan(60000);
  expect(m![2]).not.toMatch(/\d{4}-\d\d-\d\dT/);
  expect(m![2]).toMatch(/\d\d:\d\d:\d\d/);
  expect(m![2]).toMatch(/[A-Z]{2,}|GMT[+-]\d/);
});

test('a picture of a failure opens at full size', () => {
  const shots = join(dir, 'gamebridge-tests');
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, 'menu.actual.png'), 'actual bytes');
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const page = report(
      failed({
        line: 3,
        step: 'expect screenshot menu.png',
        message: 'differ',
        images: { baseline: join(shots, 'menu.png'), actual: join(shots, 'menu.actual.png') },
      }),
    );
    const m = /<a href="([^"]+)"[^>]*><img src="([^"]+)" alt="actual"><\/a>/.exec(page);
    expect(m).not.toBeNull();
    expect(m![1]).toBe(m![2]);
    expect(page).not.toMatch(/img\{[^}]*max-width:330px/);
  } finally {
    process.chdir(cwd);
  }
});
