/**
 * docs/ARCHITECTURE.md's tree is a map of the repository, held to it both ways: every folder
 * of the repository (two levels deep; one level under test/ and docs/, whose inner folders
 * follow what they test or hold) is in the map, and every folder and file the map names
 * exists. Files are read from git (tracked, and new ones not ignored), so build output and
 * local clutter do not count. A folder added, or files regrouped into new folders, fails here
 * until the map says so.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers/procs.js';

/** Folders and files the map names: the first column of the tree's lines, nested by indentation. */
function mapped(): { folders: Set<string>; files: Set<string> } {
  const doc = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const tree = /## The tree\n[\s\S]*?```\n([\s\S]*?)```/.exec(doc)![1];
  const folders = new Set<string>();
  const files = new Set<string>();
  const parents: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^( *)(\S+(?: \S+)*)/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 2;
    // a line that only goes on describing the entry above starts in the description column
    if (!Number.isInteger(depth) || depth > parents.length) continue;
    parents.length = depth;
    const names = m[2].split(' ').filter((n) => /^[\w.-]+\/?$/.test(n));
    for (const name of names) {
      const path = [...parents, name].join('');
      if (name.endsWith('/')) folders.add(path.slice(0, -1));
      else files.add(path);
    }
    const folder = names.find((n) => n.endsWith('/'));
    if (folder && names.length === 1) parents.push(folder);
  }
  return { folders, files };
}

/** The repository's folders that the map must show. */
function repositoryFolders(): Set<string> {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const out = new Set<string>();
  for (const file of listed.split('\n')) {
    if (!file || !existsSync(join(ROOT, file))) continue; // deleted in the work tree
    const parts = file.split('/').slice(0, -1);
    if (!parts.length || parts[0].startsWith('.')) continue;
    const depth = parts[0] === 'test' || parts[0] === 'docs' ? 1 : 2;
    for (let i = 1; i <= Math.min(depth, parts.length); i++) out.add(parts.slice(0, i).join('/'));
  }
  return out;
}

test("every folder of the repository is in docs/ARCHITECTURE.md's tree", () => {
  const { folders } = mapped();
  const missing = [...repositoryFolders()].filter((f) => !folders.has(f)).sort();
  expect(missing).toEqual([]);
});

test("every folder and file docs/ARCHITECTURE.md's tree names exists", () => {
  const { folders, files } = mapped();
  expect(folders.size).toBeGreaterThan(30);
  const gone = [...folders, ...files].filter((p) => !existsSync(join(ROOT, p))).sort();
  expect(gone).toEqual([]);
});

/** The folders under test/unit/, as paths of the source folders they stand for. */
function unitFolders(dir = join(ROOT, 'test', 'unit'), rel = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => [`${rel}${e.name}`, ...unitFolders(join(dir, e.name), `${rel}${e.name}/`)]);
}

test('no unit test lies loose in test/unit/: each sits in the folder of what it tests', () => {
  const loose = readdirSync(join(ROOT, 'test', 'unit')).filter((f) => f.endsWith('.ts'));
  expect(loose).toEqual([]);
});

test('every folder under test/unit/ mirrors a folder of the source', () => {
  const folders = unitFolders();
  expect(folders).toContain('daemon/sync'); // the walk found the unit tests' folders
  expect(folders.filter((f) => !existsSync(join(ROOT, f))).sort()).toEqual([]);
});
