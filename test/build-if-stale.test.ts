/**
 * `npm run demo` builds only when a source changed since the last complete `npm run build`
 * (scripts/build-if-stale.mjs): the real script, copied into a project of its own whose build
 * counts its runs, run by node and npm as `npm run demo` runs it.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, removeDir, tempHome } from './helpers/procs.js';

const SCRIPT = join(ROOT, 'scripts', 'build-if-stale.mjs');
let dir = '';

beforeEach(() => {
  dir = tempHome('gb-buildstale-');
  mkdirSync(join(dir, 'scripts'));
  mkdirSync(join(dir, 'daemon'));
  mkdirSync(join(dir, 'examples', 'csharp-game', 'bin'), { recursive: true });
  copyFileSync(SCRIPT, join(dir, 'scripts', 'build-if-stale.mjs'));
  writeFileSync(join(dir, 'daemon', 'main.ts'), 'export {};\n');
  const build = `node -e "require('node:fs').appendFileSync('builds', 'x')" && node scripts/build-if-stale.mjs --stamp`;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'p', private: true, scripts: { build } }));
});
afterEach(() => removeDir(dir));

const builds = () => (existsSync(join(dir, 'builds')) ? readFileSync(join(dir, 'builds'), 'utf8').length : 0);
const later = (file: string) => {
  const t = new Date(Date.now() + 5000);
  utimesSync(join(dir, file), t, t);
};
function demoBuild(): string {
  const env = { ...process.env };
  delete env.npm_execpath;
  const r = spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: dir, env, encoding: 'utf8' });
  expect(r.status).toBe(0);
  return r.stderr;
}

test("package.json's demo builds only through the check, and the build ends with the stamp", () => {
  const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
  expect(scripts.demo).toMatch(/^node scripts\/build-if-stale\.mjs && node dist\/proxy\/main\.js demo$/);
  expect(scripts.build).toMatch(/&& node scripts\/build-if-stale\.mjs --stamp$/);
});

test('builds when dist was never built, then not again until a source changes', () => {
  demoBuild();
  expect(builds()).toBe(1);
  expect(existsSync(join(dir, 'dist', '.build-stamp'))).toBe(true);
  expect(demoBuild()).toMatch(
    /^dist is up to date with the sources \(built .*\), so no build first; npm run build rebuilds\.\n$/,
  );
  expect(builds()).toBe(1);
  later('daemon/main.ts');
  demoBuild();
  expect(builds()).toBe(2);
});

test("a runtime's own output in an example is not a source; a newer package-lock.json is", () => {
  demoBuild();
  writeFileSync(join(dir, 'examples', 'csharp-game', 'bin', 'Game.exe'), 'MZ');
  later('examples/csharp-game/bin/Game.exe');
  demoBuild();
  expect(builds()).toBe(1);
  writeFileSync(join(dir, 'package-lock.json'), '{}');
  later('package-lock.json');
  demoBuild();
  expect(builds()).toBe(2);
});
