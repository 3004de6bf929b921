/**
 * Test names people can read: one behaviour per test, each under its own name. Whether a title
 * says one behaviour is for its reader to judge (punctuation does not tell: a rule against ";"
 * only moved the second behaviour behind ", and"); what a machine can check is that no two tests
 * of a file share a name, so a failure names the one test that failed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const TEST_DIR = join(process.cwd(), 'test');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' || e.name === 'node_modules' ? [] : testFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The titles of a file: the first string argument of test, it, describe, their .each / .skip
 * forms, a chosen `(cond ? test : test.skip)(…)`, and the file's own test wrappers (asOtherUserTest).
 */
const TITLE =
  /(?:\b(?:test|it|describe|\w+Test|describe\w+)(?:\.\w+)*(?:\((?:[^()]|\([^()]*\))*\))?|\?\s*test(?:\.skip)?\s*:\s*test(?:\.skip)?\s*\))\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g;

export function titlesOf(source: string): string[] {
  return [...source.matchAll(TITLE)].map((m) => m[2]);
}

/** The titles a file gives more than one test (a table's template, with %s or ${…}, is one title for its rows). */
export function repeatedTitles(titles: string[]): string[] {
  const fixed = titles.filter((t) => !/%[sdijpo#]|\$\{/.test(t));
  return [...new Set(fixed.filter((t, i) => fixed.indexOf(t) !== i))];
}

test('the title reader finds the titles of every test form this suite uses', () => {
  const source = [
    "test('a plain one', () => {});",
    "describe.each(DOORS)('a table of %s', () => {});",
    "test.each(['a', 'b'] as Mode[])(`${mode}: a templated one`, () => {});",
    "(hasScript ? test : test.skip)('a chosen one', () => {});",
    "asOtherUserTest(\n  'a wrapped one on its own line', () => {});",
    "expect(x).toBe('not a title; at all');",
  ].join('\n');
  expect(titlesOf(source)).toEqual([
    'a plain one',
    'a table of %s',
    '${mode}: a templated one',
    'a chosen one',
    'a wrapped one on its own line',
  ]);
});

test("a title given to two tests is repeated unless it is a table's template", () => {
  expect(repeatedTitles(['a', 'b', 'a', '%s row', '%s row', '${x} too', '${x} too'])).toEqual(['a']);
});

test('no two tests of a file in test/ share a title', () => {
  const files = testFiles(TEST_DIR);
  expect(files.length).toBeGreaterThan(50); // the walk found the suite, so an empty answer means something
  const repeated = files
    .map((f) => relative(TEST_DIR, f))
    .flatMap((rel) => repeatedTitles(titlesOf(readFileSync(join(TEST_DIR, rel), 'utf8'))).map((t) => `${rel}: ${t}`));
  expect(repeated).toEqual([]);
});
