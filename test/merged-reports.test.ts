/**
 * Sharded runs merged into one report (docs/TESTS.md, "Sharding in CI"): three shards of a run
 * each leave a blob (`test --shard i/3 --reporter blob`), and `merge-reports` makes of them the
 * report one unsharded run makes, in every reporter. A small counter game
 * (test/fixtures/counter-game.mjs), launched by the real CLI through the real proxy and daemon.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { freeRange } from './helpers/ports.js';
import { bridgeFreeEnv, removeDir, ROOT, tempHome, runCli } from './helpers/procs.js';
import { reapAndReport } from './helpers/fault.js';
import { writeProject, type Project } from './helpers/project.js';

const COUNTER = join(ROOT, 'test', 'fixtures', 'counter-game.mjs');
let home: string;
let root: string;
let project: Project;
const env = () => bridgeFreeEnv({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '120000' });

const cli = (args: string[], cwd = project.root) => runCli(args, { cwd, env: env() });

const line = (o: object) => JSON.stringify(o);
/** Seven tests: `count-3` and `count-6` expect the wrong count, the others pass. */
const TESTS = Array.from({ length: 7 }, (_, k) => k + 1);

beforeAll(async () => {
  home = tempHome('gb-merge-');
  root = tempHome('gb-merge-proj-');
  project = writeProject(join(root, 'counter'), {
    ports: await freeRange(8),
    name: 'Counter',
    command: `"${process.execPath}" "${COUNTER}" {port}`,
  });
  mkdirSync(join(project.root, 'gamebridge-tests'));
  for (const k of TESTS)
    writeFileSync(
      join(project.root, 'gamebridge-tests', `count-${k}.jsonl`),
      [
        line({
          gamebridgeTest: 1,
          name: `count-${k}`,
          launch: { config: '../gamebridge.json' },
          timing: 'frame-exact',
        }),
        line({ do: 'call_tool', name: 'inc' }),
        line({ expect: { path: 'game.count', equals: k % 3 === 0 ? 2 : 1 } }),
      ].join('\n') + '\n',
    );
});

afterAll(async () => {
  await reapAndReport(home);
  removeDir(home);
  removeDir(root);
});

/** Each test's name and outcome, as a JSON report has them. */
const outcomes = (file: string) =>
  (JSON.parse(readFileSync(file, 'utf8')).tests as Array<{ name: string; ok: boolean; flaky?: unknown }>).map((t) => [
    t.name,
    t.ok ? (t.flaky ? 'flaky' : 'passed') : 'failed',
  ]);

test('three shards merged equal one unsharded run in the JSON, JUnit and HTML reports, each test once with its shard', async () => {
  const out = join(root, 'out');
  const whole = await cli(['test', '--reporter', 'json', '--output', join(out, 'whole.json')]);
  expect(whole.code).toBe(1);
  const expected = outcomes(join(out, 'whole.json'));
  expect(expected).toHaveLength(7);
  expect(expected.filter(([, o]) => o === 'failed').map(([n]) => n)).toEqual(['count-3', 'count-6']);

  for (const i of [1, 2, 3]) {
    const shard = await cli([
      'test',
      '--shard',
      `${i}/3`,
      '--workers',
      '2',
      '--reporter',
      'blob',
      '--output',
      join(out, `shard-${i}`),
    ]);
    expect(shard.out).toMatch(new RegExp(`Blob report: .*shard-${i}/blob-${i}-of-3\\.jsonl`));
    // the machine that merges has the blobs only: nothing else the shard wrote
    removeDir(join(out, `shard-${i}`, 'traces'));
    expect(readdirSync(join(out, `shard-${i}`))).toEqual([`blob-${i}-of-3.jsonl`]);
  }

  const json = await cli([
    'merge-reports',
    join(out, 'shard-1'),
    join(out, 'shard-2'),
    join(out, 'shard-3'),
    '--reporter',
    'json',
    '--output',
    join(out, 'merged.json'),
  ]);
  expect(json.code).toBe(0);
  expect(json.out).toMatch(/\n5 passed, 2 failed, merged from 3 blobs \(shards 1\/3, 2\/3, 3\/3\)\n/);
  expect(json.out).toMatch(
    /^✗ count-3 \(shard 3\/3\)\n {4}at gamebridge-tests\/count-3\.jsonl:3 {2}expect game\.count equals 2/m,
  );
  expect(outcomes(join(out, 'merged.json'))).toEqual(expected);
  const shards = JSON.parse(readFileSync(join(out, 'merged.json'), 'utf8')).tests.map(
    (t: { shard: string }) => t.shard,
  );
  // round robin over the sorted files: count-1 in shard 1, count-2 in 2, count-3 in 3, count-4 in 1…
  expect(shards).toEqual(['1/3', '2/3', '3/3', '1/3', '2/3', '3/3', '1/3']);

  await cli(['merge-reports', out, '--reporter', 'junit', '--output', join(out, 'merged.xml')]);
  const xml = new XMLParser({ ignoreAttributes: false }).parse(readFileSync(join(out, 'merged.xml'), 'utf8'));
  const cases = xml.testsuites.testsuite.testcase as Array<Record<string, unknown>>;
  expect(xml.testsuites['@_tests']).toBe('7');
  expect(xml.testsuites['@_failures']).toBe('2');
  expect(cases.map((c) => [c['@_name'], c.failure ? 'failed' : 'passed'])).toEqual(expected);
  expect(cases[2].properties).toEqual({ property: { '@_name': 'shard', '@_value': '3/3' } });

  const html = await cli(['merge-reports', out, '--output', join(out, 'merged-html')]);
  expect(html.out).toMatch(/HTML report: .*merged-html\/index\.html/);
  const page = readFileSync(join(out, 'merged-html', 'index.html'), 'utf8');
  expect(page).toMatch(/5 passed<\/span>, <span class="bad">2 failed/);
  const rows = [
    ...page.matchAll(/<summary><span class="mark">(.)<\/span> ([\w-]+).*?<span class="shard">shard ([\d/]+)</g),
  ];
  expect(rows.map(([, mark, name]) => [name, mark === '✓' ? 'passed' : 'failed'])).toEqual(expected);
  expect(rows.map(([, , , shard]) => shard)).toEqual(shards);
  // each failed test's trace travelled in its shard's blob and is linked beside the merged report
  const traces = [...page.matchAll(/<a class="trace" href="([^"]+)">trace<\/a>/g)].map(([, href]) => decodeURI(href));
  expect(traces).toHaveLength(2);
  expect(readFileSync(join(out, 'merged-html', traces[0]), 'utf8')).toContain('count-3');
  expect(readFileSync(join(out, 'merged-html', traces[1]), 'utf8')).toContain('count-6');
}, 300000);

const blobHeader = (o: object = {}) =>
  line({
    gamebridgeBlob: 1,
    tool: '0.2.0',
    shard: { index: 1, total: 2 },
    startedAt: '2026-01-01T00:00:00.000Z',
    ms: 10,
    ...o,
  });
const passed = (name: string, ok = true) =>
  line({
    test: {
      file: `gamebridge-tests/${name}.jsonl`,
      name,
      ok,
      ms: 5,
      steps: [{ line: 2, text: 'inc', ok, ms: 1 }],
      ...(ok ? {} : { failure: { line: 2, step: 'inc', message: 'AssertionFailed: no' } }),
    },
  });

describe('a blob of a newer format', () => {
  let dir: string;
  let r: Awaited<ReturnType<typeof cli>>;
  beforeAll(async () => {
    dir = join(root, 'newer');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'blob-1-of-2.jsonl'),
      [blobHeader({ gamebridgeBlob: 2, tool: '9.0.0' }), passed('a')].join('\n'),
    );
    r = await cli(['merge-reports', dir, '--reporter', 'json', '--output', join(dir, 'm.json')]);
  }, 60000);

  test('is refused, naming the file and both versions', () => {
    expect(r.err).toMatch(
      /^game-bridge-mcp: merge-reports: .*newer\/blob-1-of-2\.jsonl: blob format 2 \(written by game-bridge-mcp 9\.0\.0\), this game-bridge-mcp \S+ reads 1; merge with the version that wrote it\./,
    );
    expect(r.code).toBe(2);
  });

  test('writes nothing', () => {
    expect(readdirSync(dir)).toEqual(['blob-1-of-2.jsonl']);
  });
});

test('a malformed blob is refused, naming the file and line', async () => {
  const dir = join(root, 'malformed');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'blob-1-of-1.jsonl'),
    [blobHeader({ shard: { index: 1, total: 1 } }), passed('a'), '{"test": {"name": 3}}'].join('\n'),
  );
  const r = await cli(['merge-reports', dir]);
  expect(r.err).toMatch(
    /^game-bridge-mcp: merge-reports: .*malformed\/blob-1-of-1\.jsonl:3: 'test\.file': .*; nothing was merged\./,
  );
  expect(r.code).toBe(2);
}, 60000);

test('a test in two blobs (a re-run shard beside the first) is reported once, flaky when it failed and passed, with a note', async () => {
  const dir = join(root, 'twice');
  mkdirSync(dir);
  writeFileSync(join(dir, 'blob-1-of-2.jsonl'), [blobHeader(), passed('a', false), passed('b')].join('\n'));
  mkdirSync(join(dir, 'rerun'));
  writeFileSync(join(dir, 'rerun', 'blob-1-of-2.jsonl'), [blobHeader(), passed('a'), passed('b')].join('\n'));
  writeFileSync(
    join(dir, 'blob-2-of-2.jsonl'),
    [blobHeader({ shard: { index: 2, total: 2 } }), passed('c')].join('\n'),
  );
  const r = await cli(['merge-reports', dir, '--reporter', 'json', '--output', join(dir, 'm.json')]);
  expect(r.out).toMatch(/^~ a \(shard 1\/2\) flaky: passed on retry 1 after failing\n/);
  expect(r.out).toMatch(
    /\nnote: gamebridge-tests\/a\.jsonl is in 2 blobs \(shards 1\/2, 1\/2\): reported once, flaky \(it failed and passed\)\.\n/,
  );
  expect(r.out).toMatch(/\n2 passed, 1 flaky, 0 failed, merged from 3 blobs/);
  expect(r.code).toBe(0);
  expect(outcomes(join(dir, 'm.json'))).toEqual([
    ['a', 'flaky'],
    ['b', 'passed'],
    ['c', 'passed'],
  ]);
}, 60000);
