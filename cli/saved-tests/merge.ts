/**
 * `game-bridge-mcp merge-reports <blob folders or files…>` (docs/TESTS.md, "Sharding in CI"):
 * reads every shard's blob, makes one run of them (each test once, named with the shard that ran
 * it, in the order an unsharded run reports them) and renders it with the reporters `test` uses.
 * Prints the failures and the summary as `test` does. A merge that worked exits 0 even when tests
 * failed: their shards' jobs failed already, and the pipeline's next steps (another report, the
 * upload) should run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { usageError } from '../../shared/errors.js';
import { outputFolder, writeProjectFile } from '../../shared/project-files.js';
import { printableLines } from '../printable.js';
import { blobFiles, readBlob, type Blob, type BlobTest } from './blob.js';
import type { Failure, TestResult } from './replay.js';
import { DEFAULT_OUTPUT, tracesFolder, writeReport, type Reporter } from './reporters.js';
import { failureText } from './run.js';

/** At most this many blobs: a run's shards, with room for re-runs. */
export const MAX_BLOBS = 1000;

export interface Merged {
  results: TestResult[];
  /** for each result, the pictures its failures name (by the name the result uses), as base64 */
  attachments: Array<Record<string, string>>;
  /** what a person should know about the blobs: a shard missing, a test in two blobs */
  notes: string[];
}

const shardText = (b: Blob) => `${b.header.shard.index}/${b.header.shard.total}`;

/**
 * One run of many blobs. A test (by its file) in more than one blob ran more than once, e.g. a
 * re-run shard's blob beside the first one's: it is reported once, as a retry would be (flaky
 * when it both failed and passed), its shards named, and a note says so.
 */
export function mergeBlobs(blobs: Blob[]): Merged {
  type Run = { t: BlobTest; shard: string };
  const runs = new Map<string, Run[]>();
  for (const b of blobs)
    for (const t of b.tests) {
      const list = runs.get(t.test.file) ?? [];
      list.push({ t, shard: shardText(b) });
      runs.set(t.test.file, list);
    }
  const m: Merged = { results: [], attachments: [], notes: [] };
  for (const [file, list] of [...runs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const shard = [...new Set(list.map((x) => x.shard))].join(', ');
    const passed = list.find((x) => x.t.test.ok);
    const failed = list.filter((x) => !x.t.test.ok);
    // the run whose failure is reported brings its pictures
    const shown = failed[0] ?? passed!;
    let r: TestResult = { ...shown.t.test, shard };
    if (passed && failed.length)
      r = {
        ...passed.t.test,
        shard,
        flaky: { retries: failed.length, failure: failed[0].t.test.failure! },
        trace: failed[0].t.test.trace,
      };
    m.results.push(r);
    m.attachments.push(shown.t.attachments);
    if (list.length > 1)
      m.notes.push(
        `${file} is in ${list.length} blobs (shards ${list.map((x) => x.shard).join(', ')}): reported once, ${r.flaky ? 'flaky (it failed and passed)' : r.ok ? 'passed' : 'failed'}.`,
      );
  }
  // a shard whose blob is missing: its tests are not in the report, which must say so
  const totals = [...new Set(blobs.map((b) => b.header.shard.total))];
  if (totals.length > 1)
    m.notes.push(`The blobs are of runs split differently (${totals.map((n) => `into ${n}`).join(', ')}).`);
  else if (totals.length === 1) {
    const have = new Set(blobs.map((b) => b.header.shard.index));
    const missing = Array.from({ length: totals[0] }, (_, k) => k + 1).filter((i) => !have.has(i));
    if (missing.length)
      m.notes.push(
        `No blob of shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${totals[0]}`).join(', ')}: ${missing.length > 1 ? 'their' : 'its'} tests are not in this report.`,
      );
  }
  const versions = [...new Set(blobs.map((b) => b.header.tool))];
  if (versions.length > 1) m.notes.push(`The blobs were written by game-bridge-mcp ${versions.join(', ')}.`);
  return m;
}

/** Every blob the paths name, read and checked before anything is written. */
export function readBlobs(paths: string[]): Blob[] {
  if (!paths.length) throw usageError('merge-reports: name the folders (or files) holding the shards’ blobs.');
  const files = [...new Set(paths.flatMap(blobFiles))];
  if (files.length > MAX_BLOBS)
    throw usageError(
      `merge-reports: ${files.length} blobs, more than the ${MAX_BLOBS} merged at once; nothing was merged.`,
    );
  return files
    .map(readBlob)
    .sort((a, b) => a.header.shard.total - b.header.shard.total || a.header.shard.index - b.header.shard.index);
}

/**
 * A file the blob carries for `r`, written into `folder` under its own name (as a saved test's
 * files are: never through a link, never into a folder another user can write); undefined when
 * the blob has none.
 */
function placer(folder: string) {
  const used = new Set<string>();
  return (own: Record<string, string>, p: string): string | undefined => {
    const data = own[p];
    // only what the blob carries: a path it names is never read from the merging machine
    if (!data) return undefined;
    const base = basename(p);
    let name = base && base !== '..' && base !== '.' ? base : 'file';
    for (let k = 2; used.has(name); k++) name = `${k}-${base}`;
    used.add(name);
    const file = join(outputFolder(folder), name);
    writeProjectFile(file, Buffer.from(data, 'base64'));
    return file;
  };
}

/**
 * The merged results with the files their blobs carry written out: each test's trace into the
 * report's traces folder (its reports link it there), a failure's pictures into `pictures` (the
 * HTML report copies them from there).
 */
function placeFiles(m: Merged, traces: string, pictures: string): TestResult[] {
  const trace = placer(traces);
  const picture = placer(pictures);
  return m.results.map((r, k) => {
    const own = m.attachments[k];
    // a picture the blob does not carry is named in the report, never shown
    const at = (p: string) => picture(own, p) ?? join(pictures, 'none');
    const fix = (f: Failure | undefined): Failure | undefined =>
      f?.images
        ? {
            ...f,
            images: {
              baseline: at(f.images.baseline),
              ...(f.images.actual ? { actual: at(f.images.actual) } : {}),
              ...(f.images.diff ? { diff: at(f.images.diff) } : {}),
            },
          }
        : f;
    const placed: TestResult = {
      ...r,
      failure: fix(r.failure),
      ...(r.flaky ? { flaky: { ...r.flaky, failure: fix(r.flaky.failure)! } } : {}),
    };
    const traced = r.trace ? trace(own, r.trace) : undefined;
    if (traced) placed.trace = traced;
    else delete placed.trace;
    return placed;
  });
}

/** Write the merged report, its traces beside it; the line that says where it went. */
export function renderMerged(reporter: Exclude<Reporter, 'list'>, output: string, m: Merged): string {
  const pictures = mkdtempSync(join(tmpdir(), 'gb-merge-'));
  try {
    const results = placeFiles(m, tracesFolder(reporter, output), pictures);
    // JSON and JUnit name a failure's pictures by the shard's paths; only the HTML report shows them
    if (reporter !== 'html')
      return writeReport(
        reporter,
        output,
        results.map((r, k) => ({ ...m.results[k], trace: r.trace })),
      );
    return writeReport('html', output, results);
  } finally {
    rmSync(pictures, { recursive: true, force: true });
  }
}

export interface MergeOptions {
  paths: string[];
  reporter: Exclude<Reporter, 'list'>;
  output?: string;
}

export async function mergeReports(opts: MergeOptions): Promise<number> {
  const blobs = readBlobs(opts.paths);
  const m = mergeBlobs(blobs);
  const out = (text: string) => process.stdout.write(printableLines(text));
  for (const r of m.results) {
    if (!r.ok) out(`✗ ${r.name} (shard ${r.shard})\n${failureText(r)}\n`);
    else if (r.flaky)
      out(
        `~ ${r.name} (shard ${r.shard}) flaky: passed on retry ${r.flaky.retries} after failing\n${failureText({ ...r, failure: r.flaky.failure })}\n`,
      );
  }
  for (const note of m.notes) out(`note: ${note}\n`);
  const failed = m.results.filter((r) => !r.ok).length;
  const flaky = m.results.filter((r) => r.flaky).length;
  out(
    `\n${m.results.length - failed - flaky} passed, ${flaky ? `${flaky} flaky, ` : ''}${failed} failed, merged from ${blobs.length} blob${blobs.length > 1 ? 's' : ''} (shards ${blobs.map(shardText).join(', ')})\n`,
  );
  out(`${renderMerged(opts.reporter, opts.output ?? DEFAULT_OUTPUT[opts.reporter], m)}\n`);
  return 0;
}
