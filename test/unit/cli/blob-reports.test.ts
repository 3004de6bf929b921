/** Blob reports (docs/TESTS.md, "Sharding in CI"): what a shard's blob carries and how blobs merge. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBlob, writeBlob, type Blob } from '../../../cli/saved-tests/blob.js';
import { mergeBlobs, renderMerged } from '../../../cli/saved-tests/merge.js';
import type { TestResult } from '../../../cli/saved-tests/replay.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gb-blob-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const result = (name: string, ok: boolean): TestResult => ({
  file: join(dir, 'project', 'gamebridge-tests', `${name}.jsonl`),
  name,
  ok,
  ms: 12,
  steps: [{ line: 2, text: 'expect screenshot menu.png', ok, ms: 3 }],
});

const blobOf = (index: number, total: number, tests: Blob['tests'] = []): Blob => ({
  file: `blob-${index}-of-${total}.jsonl`,
  header: { gamebridgeBlob: 1, tool: '0.2.0', shard: { index, total }, startedAt: '', ms: 0 },
  tests,
});

test("a failure's pictures travel inside the blob and show in the merged HTML report", () => {
  const project = join(dir, 'project');
  const shots = join(project, 'gamebridge-tests');
  const r = result('menu', false);
  r.failure = {
    line: 2,
    step: 'expect screenshot menu.png',
    message: 'screenshot menu.png: 4% differ',
    images: { baseline: join(shots, 'menu.png'), actual: join(shots, 'menu.actual.png') },
  };
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, 'menu.png'), 'baseline bytes');
  writeFileSync(join(shots, 'menu.actual.png'), 'actual bytes');
  writeBlob(join(dir, 'blobs'), { index: 2, total: 3 }, [r], { startedAt: new Date(), ms: 40 }, project);
  // the merging machine has none of the shard's files: nothing absolute in the blob
  const text = readFileSync(join(dir, 'blobs', 'blob-2-of-3.jsonl'), 'utf8');
  expect(text).not.toContain(dir);
  rmSync(project, { recursive: true });

  const blob = readBlob(join(dir, 'blobs', 'blob-2-of-3.jsonl'));
  expect(blob.tests[0].test.failure?.images).toEqual({
    baseline: 'gamebridge-tests/menu.png',
    actual: 'gamebridge-tests/menu.actual.png',
  });
  const html = join(dir, 'report');
  renderMerged('html', html, mergeBlobs([blob]));
  const page = readFileSync(join(html, 'index.html'), 'utf8');
  const src = [...page.matchAll(/<img src="([^"]+)" alt="(\w+)">/g)].map(([, s, alt]) => [alt, s]);
  expect(src.map(([alt]) => alt)).toEqual(['actual', 'baseline']);
  expect(readFileSync(join(html, src[0][1]), 'utf8')).toBe('actual bytes');
  expect(readFileSync(join(html, src[1][1]), 'utf8')).toBe('baseline bytes');
  expect(page).toContain('<span class="shard">shard 2/3</span>');
});

test('a picture a blob names but does not carry is never read from the merging machine', () => {
  const secret = join(dir, 'secret.png');
  writeFileSync(secret, 'not for the report');
  const r = { ...result('menu', false), file: 'gamebridge-tests/menu.jsonl' };
  r.failure = {
    line: 2,
    step: 'expect screenshot menu.png',
    message: 'differ',
    images: { baseline: secret, diff: '..' },
  };
  const html = join(dir, 'report');
  renderMerged('html', html, mergeBlobs([blobOf(1, 1, [{ test: r, attachments: { '..': 'AAAA' } }])]));
  const page = readFileSync(join(html, 'index.html'), 'utf8');
  expect([...page.matchAll(/<img src="([^"]+)" alt="(\w+)">/g)].map(([, , alt]) => alt)).toEqual(['diff']);
  expect(page).not.toContain('secret');
});

test('a shard whose blob is missing is named: its tests are not in the report', () => {
  const m = mergeBlobs([blobOf(1, 4), blobOf(3, 4)]);
  expect(m.notes).toEqual(['No blob of shards 2/4, 4/4: their tests are not in this report.']);
});

test('a test that failed in both of its blobs is reported once, failed', () => {
  const t = { test: { ...result('a', false), file: 'gamebridge-tests/a.jsonl' }, attachments: {} };
  const m = mergeBlobs([blobOf(1, 2, [t]), blobOf(2, 2, [t])]);
  expect(m.results).toHaveLength(1);
  expect(m.results[0]).toMatchObject({ name: 'a', ok: false, shard: '1/2, 2/2' });
  expect(m.results[0].flaky).toBeUndefined();
});
