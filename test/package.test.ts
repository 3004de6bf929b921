/**
 * The package people install: `npm pack` of this checkout (its built dist/), installed globally
 * into a temporary prefix and into a temporary project, from the npm cache only (--offline).
 * The installed bin registers with Claude Code and shows ✔ Connected, runs `demo` from another
 * directory, `npx --package <tarball>` runs it too, and `game-bridge-mcp/game` resolves in the
 * project. No test or bench file ships.
 *
 * Offline by design: when the npm cache lacks a dependency (or Claude Code), the affected test
 * is a visible skip instead of reaching the network, and a failure under CI=true. `npm ci` puts
 * the dependencies in the cache; `.ci/run` adds the Claude Code test/clients.json pins.
 */
import { reportFigures } from './helpers/fault.js';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freeRange } from './helpers/ports.js';
import { pinnedClient, testNeeding } from './helpers/offline-npm.js';
import { connect } from './helpers/mcp.js';
import { removeDir, ROOT, stopDaemon, tempHome } from './helpers/procs.js';

/** The Claude Code release the registration is checked with (pinned, as every dependency). */
const CLAUDE_CODE = pinnedClient('@anthropic-ai/claude-code');
/** What the installed bin and `initialize` must report. */
const PKG_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const NPM_CACHE = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();

/** Run a command; resolves with its exit code and output (never rejects). */
function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ code: number; out: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (typeof v === 'string' && !k.startsWith('GAME_BRIDGE_') && !k.startsWith('npm_')) env[k] = v;
  Object.assign(
    env,
    { npm_config_cache: NPM_CACHE, npm_config_update_notifier: 'false', GAME_BRIDGE_HOME: gbHome },
    opts.env,
  );
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd: opts.cwd ?? work, env, timeout: opts.timeoutMs ?? 180000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? -1) || -1 : 0, out: `${stdout}${stderr}` });
      },
    );
  });
}

/** `npm i` from the cache only; a dependency missing from it is a skip reason, anything else fails. */
async function installOffline(args: string[], cwd: string): Promise<string | undefined> {
  const r = await run('npm', ['i', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', ...args], {
    cwd,
    timeoutMs: 240000,
  });
  if (r.code === 0) return undefined;
  if (/ENOTCACHED|only-if-cached/.test(r.out))
    return `not in the npm cache (${NPM_CACHE}): ${/request to (\S+)/.exec(r.out)?.[1] ?? 'a dependency'}`;
  throw new Error(`npm i ${args.join(' ')} failed:\n${r.out}`);
}

// Packed and installed before the tests are declared: what the cache lacks decides which run.
const work = tempHome('gb-package-');
const gbHome = join(work, 'gb-home');
// --ignore-scripts: pack the dist/ this run built; prepack's clean rebuild would pull dist/ from under concurrent tests.
const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
  cwd: ROOT,
  timeoutMs: 60000,
});
if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.out}`);
const tarball = join(
  work,
  readdirSync(work).find((f) => f.endsWith('.tgz'))!,
);
const installSkip = await installOffline(['-g', '--prefix', join(work, 'prefix'), tarball], work);
const prefixBin = installSkip ? undefined : join(work, 'prefix', 'bin', 'game-bridge-mcp');
const cc = join(work, 'claude-code');
mkdirSync(cc);
writeFileSync(join(cc, 'package.json'), '{"private": true}\n');
const ccSkip = installSkip ?? (await installOffline([CLAUDE_CODE], cc));

afterAll(async () => {
  if (prefixBin) await run(prefixBin, ['stop'], { timeoutMs: 40000 });
  removeDir(work);
}, 60000);

const tarballFiles = (): string[] =>
  execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);

test('the tarball holds the bin, the proxy and daemon bundles, the kits and the docs', () => {
  const files = tarballFiles();
  for (const f of [
    'package/dist/proxy/main.js',
    'package/dist/proxy/bundle.mjs',
    'package/dist/daemon/life/boot.js',
    'package/dist/daemon/bundle.cjs',
    'package/dist/daemon/bundle.cache',
    'package/dist/kits/js/index.js',
    'package/dist/examples/crate-stack/main.js',
    'package/README.md',
    'package/LICENSE',
    'package/CHANGELOG.md',
    'package/docs/LAUNCHING.md',
    'package/dist/gamebridge.schema.json',
  ]) {
    expect(files).toContain(f);
  }
});

test('the tarball holds no tests or bench', () => {
  const files = tarballFiles();
  // Only what a user runs or reads: the built code, the kits a game copies, the docs.
  const tops = [
    ...new Set(
      files.map((f) =>
        f
          .split('/')
          .slice(1, f.startsWith('package/dist/') ? 3 : 2)
          .join('/'),
      ),
    ),
  ];
  expect(tops.sort()).toEqual(
    [
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      'dist/cli',
      'dist/daemon',
      'dist/dashboard',
      'dist/examples',
      'dist/gamebridge.schema.json',
      'dist/kits',
      'dist/proxy',
      'dist/shared',
      'dist/web',
      'docs',
      'kits',
      'package.json',
    ].sort(),
  );
  expect(
    files.filter((f) =>
      /^package\/(test|bench)\/|^package\/dist\/(test|bench)\/|\.test\.|\.map$|\.tsbuildinfo$|^package\/kits\/js\/|^package\/dist\/examples\/.*\.d\.ts$|code-cache-build|schema-build|web-build|fixtures?\/|\.ts$(?<!\.d\.ts)/.test(
        f,
      ),
    ),
  ).toEqual([]);
  reportFigures('evidence', `PACKAGE ${tarball.split('/').pop()}: ${files.length} files`);
});

test('initialize reports the version in package.json, which carries the MIT license the LICENSE file holds', async () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string };
  expect(pkg.license).toBe('MIT');
  expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(
    /^MIT License\n\nCopyright \(c\) 2026 the game-bridge-mcp authors/,
  );
  const home = tempHome('gb-package-version-');
  try {
    const h = await connect({ env: { GAME_BRIDGE_HOME: home } });
    try {
      expect(h.client.getServerVersion()).toMatchObject({ name: 'game-bridge-mcp', version: pkg.version });
    } finally {
      await h.close();
    }
  } finally {
    stopDaemon(home);
    removeDir(home);
  }
}, 60000);

testNeeding(installSkip)(
  'installed globally: --version from another directory, then demo drives the bundled game',
  async () => {
    const elsewhere = join(work, 'elsewhere');
    mkdirSync(elsewhere);
    const version = await run(prefixBin!, ['--version'], { cwd: elsewhere });
    expect(version.out.trim()).toBe(PKG_VERSION);
    const range = await freeRange(3);
    const demo = await run(prefixBin!, ['demo', '--port-range', `${range[0]}-${range[2]}`], { cwd: elsewhere });
    reportFigures('evidence', `INSTALLED DEMO (exit ${demo.code}):\n${demo.out}`);
    expect(demo.out).toContain(join(work, 'prefix')); // it launched the installed copy's game
    expect(demo.out).toMatch(/stop_instance: port \d+ stopped/);
    expect(demo.code).toBe(0);
  },
  180000,
);

// the global install proved the cache holds every dependency
testNeeding(installSkip)(
  'npx --package <tarball> game-bridge-mcp runs from any directory',
  async () => {
    const elsewhere = join(work, 'npx-here');
    mkdirSync(elsewhere);
    const r = await run('npx', ['--yes', '--offline', '--package', tarball, 'game-bridge-mcp', '--version'], {
      cwd: elsewhere,
      timeoutMs: 240000,
    });
    expect(r.out.trim().split('\n').pop()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(r.code).toBe(0);
  },
  300000,
);

testNeeding(ccSkip && `${CLAUDE_CODE} or a dependency is ${ccSkip}`)(
  'registered with Claude Code (temp HOME), the installed bin shows ✔ Connected',
  async () => {
    // Its postinstall puts the platform's native binary in place; run it explicitly (npm's script policy varies).
    const placed = await run(
      process.execPath,
      [join(cc, 'node_modules', '@anthropic-ai', 'claude-code', 'install.cjs')],
      { cwd: cc, timeoutMs: 60000 },
    );
    expect(placed.code).toBe(0);
    const claude = join(cc, 'node_modules', '.bin', 'claude');
    const home = join(work, 'claude-home');
    mkdirSync(home);
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
    const added = await run(claude, ['mcp', 'add', '-s', 'user', 'gb', '--', prefixBin!], { env, timeoutMs: 60000 });
    expect(added.code).toBe(0);
    // docs/SETUP.md's line for a clone without `npm link`, run in the clone as written
    const cloneLine = /^claude (mcp add -s user game-bridge -- node "\$PWD\/dist\/proxy\/main\.js")$/m.exec(
      readFileSync(join(ROOT, 'docs', 'SETUP.md'), 'utf8'),
    )?.[1];
    expect(cloneLine).toBeDefined();
    const fromClone = await run('bash', ['-c', `${claude} ${cloneLine!}`], { cwd: ROOT, env, timeoutMs: 60000 });
    expect(fromClone.code).toBe(0);
    // README's line for a game's folder once `game-bridge-mcp` is on PATH (npm link there; the
    // global install here), run as written from that folder, under a HOME of its own
    const line = /^(claude mcp add -s user game-bridge -- game-bridge-mcp)\s/m.exec(
      readFileSync(join(ROOT, 'README.md'), 'utf8'),
    )?.[1];
    expect(line).toBeDefined();
    const gameDir = join(work, 'a-game');
    const gameHome = join(work, 'claude-home-game');
    mkdirSync(gameDir);
    mkdirSync(gameHome);
    const onPath = {
      HOME: gameHome,
      XDG_CONFIG_HOME: join(gameHome, '.config'),
      PATH: `${join(work, 'prefix', 'bin')}:${join(cc, 'node_modules', '.bin')}:${process.env.PATH}`,
    };
    expect((await run('bash', ['-c', line!], { cwd: gameDir, env: onPath, timeoutMs: 60000 })).code).toBe(0);
    const listedInGame = await run(claude, ['mcp', 'list'], { cwd: gameDir, env: onPath, timeoutMs: 120000 });
    reportFigures('evidence', `CLAUDE MCP LIST (game folder):\n${listedInGame.out}`);
    expect(listedInGame.out).toMatch(/game-bridge: game-bridge-mcp\s+- ✔ Connected/);
    // `claude mcp list` exits 0 whatever the health: read what it says.
    const listed = await run(claude, ['mcp', 'list'], { env, timeoutMs: 120000 });
    reportFigures('evidence', `CLAUDE MCP LIST:\n${listed.out}`);
    expect(listed.out).toMatch(new RegExp(`gb: ${prefixBin!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+- ✔ Connected`));
    expect(listed.out).toMatch(
      new RegExp(
        `game-bridge: node ${join(ROOT, 'dist', 'proxy', 'main.js').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+- ✔ Connected`,
      ),
    );
  },
  300000,
);

let installedProject: Promise<string> | undefined;

/** A project that installed the tarball (from the cache, as the global install did): made once, on first use. */
function projectWithPackage(): Promise<string> {
  installedProject ??= (async () => {
    const project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{"name": "my-game", "private": true, "type": "module"}\n');
    // the global install of the same tarball found every dependency in the cache
    expect(await installOffline([tarball], project)).toBeUndefined();
    return project;
  })();
  return installedProject;
}

testNeeding(installSkip)(
  "a project that installed the tarball imports 'game-bridge-mcp/game'",
  async () => {
    const project = await projectWithPackage();
    writeFileSync(
      join(project, 'probe.mjs'),
      "const kit = await import('game-bridge-mcp/game');\nconsole.log(JSON.stringify(Object.keys(kit).sort()));\n",
    );
    const r = await run(process.execPath, ['probe.mjs'], { cwd: project });
    expect(r.code).toBe(0);
    const exports = JSON.parse(r.out.trim().split('\n').pop()!) as string[];
    expect(exports.length).toBeGreaterThan(0);
    reportFigures('evidence', `game-bridge-mcp/game exports: ${exports.join(', ')}`);
  },
  300000,
);

/**
 * What docs/LIBRARY.md shows, run as a user's script in the project: the project's
 * gamebridge.json starts examples/tiny-game, and the exported client drives it.
 */
const DRIVE = `
import { spawn } from 'node:child_process';
import { findDeclaration, GameClient, isBridgeError, normaliseManifest, readRegistry, registryDir, withPort } from 'game-bridge-mcp';

const port = Number(process.argv[2]);
const decl = findDeclaration({ cwd: process.cwd() });
const child = spawn(withPort(decl.command, port), { shell: true, cwd: decl.cwd, detached: true, stdio: 'inherit' });
const game = new GameClient(port);
try {
  for (let i = 0; ; i++) {
    try { await game.health(); break; } catch (e) { if (i > 150) throw e; await new Promise((r) => setTimeout(r, 100)); }
  }
  const after = await game.commandAndSync('add', { n: 3 });
  const waited = await game.waitFor({ path: 'game.score', gte: 3 }, { timeoutMs: 5000 });
  const manifest = normaliseManifest(await game.tools());
  const { entries } = await readRegistry(registryDir());
  let refused;
  try { await game.commandAndSync('add', { n: 'lots' }); } catch (e) { refused = isBridgeError(e) ? e.kind : String(e); }
  let late;
  try { await game.waitFor({ path: 'game.score', gte: 1000 }, { timeoutMs: 300 }); } catch (e) { late = isBridgeError(e) ? e.kind : String(e); }
  console.log('RESULT ' + JSON.stringify({
    name: decl.name, applied: after.applied, confirmation: after.confirmation, score: after.game.score,
    waited: waited.value, tools: manifest.toolsets.flatMap((t) => t.tools.map((x) => x.name)),
    registered: entries.some((e) => e.port === port), refused, late,
  }));
} finally {
  game.close();
  process.kill(-child.pid, 'SIGTERM');
}
`;

testNeeding(installSkip)(
  "a project that installed the tarball drives tiny-game with the library's GameClient",
  async () => {
    const project = await projectWithPackage();
    const gameDir = join(project, 'tiny');
    mkdirSync(gameDir);
    for (const f of ['tiny-game.mjs', 'gamebridge.json'])
      writeFileSync(join(gameDir, f), readFileSync(join(ROOT, 'examples', 'tiny-game', f)));
    writeFileSync(join(gameDir, 'drive.mjs'), DRIVE);
    const [port] = await freeRange(1);
    const r = await run(process.execPath, ['drive.mjs', String(port)], { cwd: gameDir, timeoutMs: 60000 });
    reportFigures('evidence', `LIBRARY DRIVE (exit ${r.code}):\n${r.out}`);
    expect(r.code).toBe(0);
    const result = /^RESULT (.*)$/m.exec(r.out)?.[1];
    expect(JSON.parse(result ?? 'null')).toEqual({
      name: 'Tiny',
      applied: true,
      confirmation: 'completedCommandId',
      score: 3,
      waited: 3,
      tools: ['add'],
      registered: true,
      refused: 'CommandRejected',
      late: 'CommandTimeout',
    });
  },
  300000,
);
