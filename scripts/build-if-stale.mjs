#!/usr/bin/env node
/**
 * `npm run demo` builds first, but only when a source changed since the last complete
 * `npm run build`, which ends by writing dist/.build-stamp (`--stamp`): right after a build, the
 * demo starts at once. A source is a file of the folders and files the build reads; a change of
 * the installed packages shows in package-lock.json.
 *
 *   node scripts/build-if-stale.mjs            run `npm run build` unless dist is newer than every source
 *   node scripts/build-if-stale.mjs --stamp    mark dist as built from the sources as they are now
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');
const SOURCES = ['proxy', 'cli', 'daemon', 'shared', 'kits', 'examples', 'bench', 'dashboard', 'scripts'];
const FILES = ['package.json', 'package-lock.json', 'tsconfig.json'];
// what the build reads; a runtime's own build output in an example (a .dll, an import cache) is not a source
const SOURCE_FILE = /\.(ts|mts|js|mjs|cjs|json|html|css|svg)$/;

const mtime = (path) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
};

/** The newest modification time of a source file under `dir`. */
function newest(dir) {
  let latest = 0;
  let entries = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules' || e.name === 'dist') continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) latest = Math.max(latest, newest(path));
    else if (e.isFile() && SOURCE_FILE.test(e.name)) latest = Math.max(latest, mtime(path));
  }
  return latest;
}

if (process.argv[2] === '--stamp') {
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  process.exit(0);
}

const built = mtime(stamp);
const source = Math.max(...SOURCES.map((d) => newest(join(root, d))), ...FILES.map((f) => mtime(join(root, f))));
if (built > source) {
  process.stderr.write(
    `dist is up to date with the sources (built ${new Date(built).toLocaleString()}), so no build first; npm run build rebuilds.\n`,
  );
  process.exit(0);
}
// npm sets npm_execpath when it runs a script; run the same npm
const npm = process.env.npm_execpath;
const r = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' })
  : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(r.status ?? 1);
