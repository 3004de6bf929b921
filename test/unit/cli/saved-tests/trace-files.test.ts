/** The traces folder of a test run (cli/saved-tests/trace-files.ts): the runner removes and replaces only what it wrote. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TraceFiles, TRACES_MANIFEST } from '../../../../cli/saved-tests/trace-files.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gb-traces-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const names = () =>
  readdirSync(dir)
    .filter((f) => f !== TRACES_MANIFEST)
    .sort();

test('a trace the runner wrote for a test that passes now is removed', () => {
  const files = new TraceFiles(dir);
  expect(files.write('menu-open', '<html>1</html>')).toBe(join(dir, 'menu-open.trace.html'));
  expect(files.drop('menu-open')).toBe(1);
  expect(names()).toEqual([]);
});

test('a file of the same name the runner did not write is neither removed nor written over', () => {
  writeFileSync(join(dir, 'menu-open.trace.html'), 'an agent saved this');
  const files = new TraceFiles(dir);
  expect(files.drop('menu-open')).toBe(0);
  expect(files.write('menu-open', '<html>1</html>')).toBe(join(dir, 'menu-open-2.trace.html'));
  expect(readFileSync(join(dir, 'menu-open.trace.html'), 'utf8')).toBe('an agent saved this');
  expect(files.drop('menu-open')).toBe(1);
  expect(names()).toEqual(['menu-open.trace.html']);
});

test("a trace the runner wrote and someone changed since is no longer the runner's", () => {
  const files = new TraceFiles(dir);
  const path = files.write('menu-open', '<html>1</html>');
  writeFileSync(path, 'kept by hand');
  expect(files.drop('menu-open')).toBe(0);
  expect(files.write('menu-open', '<html>2</html>')).toBe(join(dir, 'menu-open-2.trace.html'));
  expect(readFileSync(path, 'utf8')).toBe('kept by hand');
});

test("a test's next trace replaces the one the runner wrote for it", () => {
  const files = new TraceFiles(dir);
  files.write('menu-open', '<html>1</html>');
  expect(files.write('menu-open', '<html>2</html>')).toBe(join(dir, 'menu-open.trace.html'));
  expect(names()).toEqual(['menu-open.trace.html']);
});

test('a file at the manifest name that is not a manifest is left alone and proves nothing', () => {
  writeFileSync(join(dir, TRACES_MANIFEST), 'notes');
  const files = new TraceFiles(dir);
  files.write('menu-open', '<html>1</html>');
  expect(files.drop('menu-open')).toBe(0);
  expect(readFileSync(join(dir, TRACES_MANIFEST), 'utf8')).toBe('notes');
});
