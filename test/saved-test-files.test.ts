/**
 * A saved test's files stay in its project (docs/TESTS.md): its baselines, the `.actual.png`
 * and `.diff.png` of a failure, the baselines `--update` writes and the pictures the HTML report
 * copies are read and written only inside the project and never through a link; a test file
 * another user could have written, or one past the size bound, is refused; and the
 * gamebridge.json a header names is launched only inside the project (what `run_test` runs is
 * this same command). The file checks run in this process; the launch through the real CLI.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { writeReport } from '../cli/saved-tests/reporters.js';
import type { TestResult } from '../cli/saved-tests/replay.js';
import { checkScreenshot } from '../cli/saved-tests/screenshot.js';
import { baselinePath, MAX_TEST_BYTES, readTestFile } from '../shared/test-file.js';
import { connect, gameCall } from './helpers/mcp.js';
import { asNobody, asOtherUserTest } from './helpers/nobody.js';
import { bridgeFreeEnv, removeDir, stopDaemon, tempHome, runCli } from './helpers/procs.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

const HEAD = (config = '../gamebridge.json') =>
  JSON.stringify({
    gamebridgeTest: 1,
    name: 'shots',
    game: { name: 'Crate Stack' },
    launch: { config },
    timing: 'real-time',
  });

/** A project with a gamebridge.json and one test, `gamebridge-tests/t.jsonl`; `victim` is a file outside it. */
function project(lines: string[] = [HEAD()]) {
  const base = tempHome('gb-testfiles-');
  dirs.push(base);
  chmodSync(base, 0o755);
  const root = join(base, 'game');
  const tests = join(root, 'gamebridge-tests');
  mkdirSync(tests, { recursive: true });
  writeFileSync(join(root, 'gamebridge.json'), JSON.stringify({ name: 'g', launch: { command: 'true' } }));
  const file = join(tests, 't.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  const victim = join(base, 'authorized_keys');
  writeFileSync(victim, 'ssh-ed25519 AAAA mine\n');
  return { base, root, tests, file, victim };
}

const png = (shade: number) => {
  const p = new PNG({ width: 4, height: 4 });
  p.data.fill(shade);
  return PNG.sync.write(p);
};

test.each(['/etc/x.png', '../../outside.png'])('a baseline outside the project (%s) is refused', (shot) => {
  const { file } = project();
  expect(() => baselinePath(readTestFile(file), shot)).toThrow(/is outside the test's project/);
});

test('a baseline reached through a linked folder is refused, naming the link', () => {
  const { base, tests, file } = project();
  symlinkSync(base, join(tests, 'shots'));
  expect(() => baselinePath(readTestFile(file), 'shots/menu.png')).toThrow(
    `${join(tests, 'shots')} is a symbolic link`,
  );
});

test('a failing check never writes through a shipped menu.actual.png link', () => {
  const { tests, file, victim } = project();
  writeFileSync(join(tests, 'menu.png'), png(0));
  symlinkSync(victim, join(tests, 'menu.actual.png'));
  const baseline = baselinePath(readTestFile(file), 'menu.png');
  expect(() => checkScreenshot(png(255), baseline, 0.01, false)).toThrow(
    `${join(tests, 'menu.actual.png')} is a symbolic link`,
  );
  expect(readFileSync(victim, 'utf8')).toBe('ssh-ed25519 AAAA mine\n');
});

test('a failing check never writes through a shipped menu.diff.png link', () => {
  const { tests, file, victim } = project();
  writeFileSync(join(tests, 'menu.png'), png(0));
  symlinkSync(victim, join(tests, 'menu.diff.png'));
  const baseline = baselinePath(readTestFile(file), 'menu.png');
  expect(() => checkScreenshot(png(255), baseline, 0.01, false)).toThrow(/menu\.diff\.png is a symbolic link/);
  expect(readFileSync(victim, 'utf8')).toBe('ssh-ed25519 AAAA mine\n');
});

test('--update never writes a baseline through a link at its name', () => {
  const { tests, file, victim } = project();
  symlinkSync(victim, join(tests, 'menu.png'));
  const baseline = baselinePath(readTestFile(file), 'menu.png');
  expect(() => checkScreenshot(png(255), baseline, 0.01, true)).toThrow(/menu\.png is a symbolic link/);
  expect(readFileSync(victim, 'utf8')).toBe('ssh-ed25519 AAAA mine\n');
});

test('--update into a folder that does not exist says so, naming it', () => {
  const { tests, file } = project();
  const baseline = baselinePath(readTestFile(file), 'shots/menu.png');
  expect(() => checkScreenshot(png(255), baseline, 0.01, true)).toThrow(`${join(tests, 'shots')} does not exist`);
});

test('a baseline that is a link is not read', () => {
  const { base, tests, file } = project();
  const elsewhere = join(base, 'secret.png');
  writeFileSync(elsewhere, png(0));
  symlinkSync(elsewhere, join(tests, 'menu.png'));
  const baseline = baselinePath(readTestFile(file), 'menu.png');
  expect(() => checkScreenshot(png(0), baseline, 0.01, false)).toThrow(/menu\.png is a symbolic link/);
});

test('the HTML report copies no picture a link names', () => {
  const { base, tests } = project();
  const secret = join(base, 'secret.png');
  writeFileSync(secret, png(7));
  symlinkSync(secret, join(tests, 'menu.png'));
  const out = join(base, 'report');
  const result: TestResult = {
    file: join(tests, 't.jsonl'),
    name: 'shots',
    ok: false,
    ms: 1,
    steps: [],
    failure: {
      line: 2,
      step: 'expect screenshot menu.png',
      message: 'differs',
      images: { baseline: join(tests, 'menu.png') },
    },
  };
  writeReport('html', out, [result]);
  expect(readdirSync(out)).toEqual(['index.html']);
});

asOtherUserTest('a test file another user wrote in a shared sticky tests folder is refused, naming it', async () => {
  const { tests } = project();
  chmodSync(tests, 0o1777);
  const planted = join(tests, 'planted.jsonl');
  await asNobody(
    `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(planted)}, ${JSON.stringify(HEAD() + '\n')});`,
  );
  expect(lstatSync(planted).uid).toBe(65534);
  expect(() => readTestFile(planted)).toThrow(`${planted} is not believed: it is owned by uid 65534`);
});

test('a test file in a folder any user can write is refused, naming the folder', () => {
  const { tests, file } = project();
  chmodSync(tests, 0o777);
  expect(() => readTestFile(file)).toThrow(`${tests} can be changed by another user`);
});

test('a test file bigger than the bound is refused, naming the bound', () => {
  const step = JSON.stringify({ expect: { path: 'game.' + 'x'.repeat(1000), exists: true } });
  const { file } = project([
    HEAD(),
    ...Array.from({ length: Math.ceil(MAX_TEST_BYTES / step.length) + 1 }, () => step),
  ]);
  expect(() => readTestFile(file)).toThrow(`more than the ${MAX_TEST_BYTES} allowed`);
});

/** A project whose test names a gamebridge.json outside it; that one's command leaves `marker`. */
function outsideHeader() {
  const p = project();
  const outside = join(p.base, 'outside');
  mkdirSync(outside);
  const marker = join(p.base, 'launched');
  writeFileSync(
    join(outside, 'gamebridge.json'),
    JSON.stringify({ name: 'x', launch: { command: `touch '${marker}'`, portRange: '20990', readyTimeoutMs: 3000 } }),
  );
  writeFileSync(p.file, HEAD('../../outside/gamebridge.json') + '\n');
  const home = join(p.base, 'home');
  mkdirSync(home, { mode: 0o700 });
  const refusal = `the header's launch.config ${join(outside, 'gamebridge.json')} is outside the test's project (${p.root})`;
  return { ...p, marker, home, refusal };
}

test('the test command launches no gamebridge.json a header names outside the project', async () => {
  const { root, file, marker, home, refusal } = outsideHeader();
  try {
    const r = await runCli(['test', file], {
      cwd: root,
      env: bridgeFreeEnv({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '5000' }),
    });
    expect(r.code).toBe(1);
    expect(r.out).toContain(refusal);
    expect(existsSync(marker)).toBe(false);
  } finally {
    stopDaemon(home);
  }
});

test('run_test launches no gamebridge.json a header names outside the project', async () => {
  const { root, marker, home, refusal } = outsideHeader();
  const h = await connect({
    env: { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '5000' },
    cwd: root,
    args: ['--no-scan'],
  });
  try {
    const r = await gameCall(h, 1, 'run_test', { name: 't' }, 120000);
    expect(r.json).toMatchObject({ passed: false, ok: false });
    expect(r.json.failure.message).toContain(refusal);
    expect(existsSync(marker)).toBe(false);
  } finally {
    await h.close();
    stopDaemon(home);
  }
});
