/**
 * The saved-test runner at scale (docs/TESTS.md): `--compare` between builds that ran a
 * different number of frames before the runner paused them, and more, on a small counter game
 * (test/fixtures/counter-game.mjs) launched by the real CLI through the real proxy and daemon.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { XMLParser } from 'fast-xml-parser';
import { join } from 'node:path';
import { freeRange } from './helpers/ports.js';
import { bridgeFreeEnv, removeDir, ROOT, tempHome, runCli } from './helpers/procs.js';
import { reapAndReport } from './helpers/fault.js';
import { writeProject, type Project } from './helpers/project.js';

const COUNTER = join(ROOT, 'test', 'fixtures', 'counter-game.mjs');
let home: string;
let root: string;
let ports: number[];
const env = () => bridgeFreeEnv({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '120000' });

const cli = (args: string[], cwd: string) => runCli(args, { cwd, env: env() });

let nextPorts = 0;
/** A project of the counter game with `args`, on four ports of its own. */
function counterProject(dir: string, args: string): Project {
  const p = ports.slice(nextPorts, nextPorts + 4);
  nextPorts += 4;
  return writeProject(join(root, dir), {
    ports: p,
    name: 'Counter',
    command: `"${process.execPath}" "${COUNTER}" {port} ${args}`,
  });
}

const line = (o: object) => JSON.stringify(o);
const HEAD = (name: string) =>
  line({ gamebridgeTest: 1, name, launch: { config: '../gamebridge.json' }, timing: 'frame-exact' });

beforeAll(async () => {
  home = tempHome('gb-runs-');
  root = tempHome('gb-runs-proj-');
  ports = await freeRange(40);
});

afterAll(async () => {
  await reapAndReport(home);
  removeDir(home);
  removeDir(root);
});

test('a frame-exact test’s game is launched paused: its simFrame counts from 0, not from where it ran to', async () => {
  const p = counterProject('from-zero', '--fps 1000');
  mkdirSync(join(p.root, 'gamebridge-tests'));
  writeFileSync(
    join(p.root, 'gamebridge-tests', 'zero.jsonl'),
    [
      HEAD('zero'),
      line({ do: 'call_tool', name: 'bridge.step', arguments: { frames: 3 } }),
      line({ expect: { path: 'simFrame', equals: 3 } }),
      line({ do: 'call_tool', name: 'inc', atSimFrame: 10 }),
      line({ expect: { path: 'simFrame', equals: 10 } }),
    ].join('\n') + '\n',
  );
  const r = await cli(['test'], p.root);
  expect(r.out).toMatch(/^✓ zero \(/);
  expect(r.code).toBe(0);
}, 120000);

test('--compare counts frames from each game’s first pause, so builds launched at other frames part only at the real difference', async () => {
  const a = counterProject('cmp-a', '--fps 60');
  // the same game, one frame too many per inc, on a kit that does not start paused: many frames before the runner's pause
  const b = counterProject('cmp-b', '--by 2 --fps 1000 --runs-at-launch');
  mkdirSync(join(a.root, 'gamebridge-tests'));
  const file = join(a.root, 'gamebridge-tests', 'count.jsonl');
  writeFileSync(
    file,
    [
      HEAD('count'),
      line({ do: 'call_tool', name: 'bridge.pause', atSimFrame: 5 }),
      line({ do: 'call_tool', name: 'bridge.step', arguments: { frames: 3 } }),
      line({ do: 'call_tool', name: 'inc', atSimFrame: 10 }),
      line({ do: 'call_tool', name: 'bridge.step', arguments: { frames: 2 } }),
    ].join('\n') + '\n',
  );
  const same = await cli(['test', '--compare', a.file, a.file, file], a.root);
  expect(same.out).toMatch(/^✓ count: both builds agree after all 4 steps/);
  const differ = await cli(['test', '--compare', a.file, b.file, file], a.root);
  expect(differ.out).toMatch(
    /^✗ count: the builds part after step 3 \(gamebridge-tests\/count\.jsonl:4 {2}inc @10\)\n/,
  );
  expect(differ.out).toMatch(
    /\n {4}path: game\.count\n {4}A \(gamebridge\.json\): 1\n {4}B \(\.\.\/cmp-b\/gamebridge\.json\): 2\n/,
  );
  expect(differ.code).toBe(1);
}, 120000);

test('--retries: a test that fails once then passes is flaky in the terminal, JSON, HTML and JUnit, counted apart', async () => {
  const p = counterProject('flaky', `--flaky-file "${join(root, 'flaky', 'launched')}"`);
  mkdirSync(join(p.root, 'gamebridge-tests'));
  writeFileSync(
    join(p.root, 'gamebridge-tests', 'count.jsonl'),
    [HEAD('count'), line({ do: 'call_tool', name: 'inc' }), line({ expect: { path: 'game.count', equals: 1 } })].join(
      '\n',
    ) + '\n',
  );
  const out = join(p.root, 'out');
  const r = await cli(['test', '--retries', '2', '--reporter', 'json', '--output', join(out, 'r.json')], p.root);
  expect(r.out).toMatch(
    /^~ count \(\d+\.\ds\) flaky: passed on retry 1 after failing\n {4}at gamebridge-tests\/count\.jsonl:3/,
  );
  expect(r.out).toMatch(/\n0 passed, 1 flaky, 0 failed/);
  expect(r.code).toBe(0);
  const json = JSON.parse(readFileSync(join(out, 'r.json'), 'utf8'));
  expect(json.tests[0]).toMatchObject({
    ok: true,
    flaky: { retries: 1, failure: { condition: 'game.count equals 1' } },
  });
  removeDir(join(root, 'flaky', 'launched'));
  await cli(['test', '--retries', '1', '--reporter', 'junit', '--output', join(out, 'j.xml')], p.root);
  const xml = new XMLParser({ ignoreAttributes: false }).parse(readFileSync(join(out, 'j.xml'), 'utf8'));
  expect(xml.testsuites['@_failures']).toBe('0');
  expect(xml.testsuites.testsuite.testcase.flakyFailure['#text']).toMatch(/expected: equals 1/);
  removeDir(join(root, 'flaky', 'launched'));
  await cli(['test', '--retries', '1', '--reporter', 'html', '--output', join(out, 'h')], p.root);
  expect(readFileSync(join(out, 'h', 'index.html'), 'utf8')).toMatch(
    /0 passed<\/span>, <span class="flaky">1 flaky<\/span>.*flaky: passed on retry 1/s,
  );
}, 120000);
