/**
 * Test names people can read: one behaviour per test. A title that joins behaviours with ";"
 * is two tests under one name (split it) or one behaviour said in two clauses (say it as one
 * sentence). A ";" inside parentheses is an aside, not a second behaviour.
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

/** A title joins behaviours when it has a ";" outside parentheses (and outside `${…}`). */
export function joinsBehaviours(title: string): boolean {
  let prev: string;
  let bare = title.replace(/\$\{[^}]*\}/g, '');
  do {
    prev = bare;
    bare = bare.replace(/\([^()]*\)/g, '');
  } while (bare !== prev);
  return bare.includes(';');
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

test('a semicolon joins behaviours unless it sits inside parentheses', () => {
  expect(joinsBehaviours('it starts; it stops')).toBe(true);
  expect(joinsBehaviours('it starts (a link to kits/love; users copy it) and runs')).toBe(false);
  expect(joinsBehaviours('it starts, then stops')).toBe(false);
});

test('no test title in test/ joins behaviours with a semicolon', () => {
  const files = testFiles(TEST_DIR);
  expect(files.length).toBeGreaterThan(50); // the walk found the suite, so an empty answer means something
  const joined = files
    .map((f) => relative(TEST_DIR, f))
    .flatMap((rel) =>
      titlesOf(readFileSync(join(TEST_DIR, rel), 'utf8'))
        .filter(joinsBehaviours)
        .map((t) => `${rel}: ${t}`),
    );
  expect(joined).toEqual([]);
});
