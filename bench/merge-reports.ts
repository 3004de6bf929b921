/**
 * Merged shard reports (docs/TESTS.md, "Sharding in CI"): how long `merge-reports` takes to make
 * one report of 20 shards × 50 tests. The blobs are written synthetically with the runner's own
 * blob writer: each test 30 steps, one in ten failed (with the state around its failure), one in
 * twenty-five flaky, and one failure per shard a screenshot check with its three pictures
 * (30 KB each) inlined. Timed: the whole command (a process, as CI runs it) per reporter, and the
 * reading and merging of the blobs alone, in this process.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { writeBlob } from '../cli/saved-tests/blob.js';
import { mergeBlobs, readBlobs } from '../cli/saved-tests/merge.js';
import type { Failure, TestResult } from '../cli/saved-tests/replay.js';
import { CLI, median, now, round, type Reaper } from './harness.js';
import { ms, type BenchConfig, type Measurement } from './types.js';

const run = promisify(execFile);
const SHARDS = 20;
const PER_SHARD = 50;
const STEPS = 30;

function synthetic(project: string, shard: number): TestResult[] {
  const tests: TestResult[] = [];
  for (let k = 0; k < PER_SHARD; k++) {
    const n = (k * SHARDS + shard).toString().padStart(4, '0');
    const failed = k % 10 === 3;
    const steps = Array.from({ length: STEPS }, (_, s) => ({
      line: s + 2,
      text: s % 3 ? `press {"input":"right","frames":10} @${s * 10}` : `expect game.score gte ${s}`,
      ok: !(failed && s === STEPS - 1),
      ms: 3 + (s % 7),
    }));
    const failure = (picture: boolean): Failure => {
      if (!picture)
        return {
          line: STEPS + 1,
          step: 'expect game.score equals 40',
          message: 'AssertionFailed: On port 7840, game.score is 20 at frame 300; expected equals 40.',
          condition: 'game.score equals 40',
          expected: 'equals 40',
          actual: 20,
          state: {
            score: 20,
            crates: Array.from({ length: 20 }, (_, c) => ({ id: c, x: c * 10, y: 0, settled: true })),
          },
          statePath: 'game',
        };
      const images = Object.fromEntries(
        ['baseline', 'actual', 'diff'].map((kind) => {
          const file = join(project, 'gamebridge-tests', `t${n}.${kind}.png`);
          writeFileSync(file, Buffer.alloc(30_000, kind));
          return [kind, file];
        }),
      ) as Failure['images'];
      return { line: STEPS + 1, step: 'expect screenshot menu.png', message: 'screenshot: 4.1% differ', images };
    };
    const r: TestResult = {
      file: join(project, 'gamebridge-tests', `t${n}.jsonl`),
      name: `test ${n}`,
      ok: !failed,
      ms: 800 + k,
      steps,
      timing: 'frame-exact',
      shard: `${shard}/${SHARDS}`,
    };
    if (failed) r.failure = failure(k === 3);
    if (k % 25 === 7) r.flaky = { retries: 1, failure: failure(false) };
    tests.push(r);
  }
  return tests;
}

export async function measureMergeReports(_reaper: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const dir = mkdtempSync(join(tmpdir(), 'gb-bench-merge-'));
  try {
    const project = join(dir, 'project');
    mkdirSync(join(project, 'gamebridge-tests'), { recursive: true });
    const blobs = join(dir, 'blobs');
    for (let s = 1; s <= SHARDS; s++)
      writeBlob(
        join(blobs, `shard-${s}`),
        { index: s, total: SHARDS },
        synthetic(project, s),
        { startedAt: new Date(), ms: 60_000 },
        project,
      );
    const files = readdirSync(blobs).map((d) => join(blobs, d, readdirSync(join(blobs, d))[0]));
    const bytes = files.reduce((a, f) => a + statSync(f).size, 0);

    const runs = cfg.quick ? 3 : 5;
    const inProcess: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = now();
      const merged = mergeBlobs(readBlobs([blobs]));
      inProcess.push(now() - t);
      if (merged.results.length !== SHARDS * PER_SHARD) throw new Error(`merged ${merged.results.length} tests`);
    }
    const cli: Record<string, number> = {};
    for (const [reporter, output] of [
      ['html', 'report'],
      ['junit', 'results.xml'],
      ['json', 'results.json'],
    ]) {
      const walls: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t = now();
        await run(
          process.execPath,
          [CLI, 'merge-reports', blobs, '--reporter', reporter, '--output', join(dir, output)],
          {
            cwd: project,
            maxBuffer: 64 << 20,
          },
        );
        walls.push(now() - t);
      }
      cli[reporter] = median(walls);
    }
    const tests = SHARDS * PER_SHARD;
    return {
      name: 'merge-reports',
      figures: {
        shards: SHARDS,
        testsPerShard: PER_SHARD,
        blobBytes: bytes,
        readAndMergeMs: round(median(inProcess)),
        commandMs: Object.fromEntries(Object.entries(cli).map(([k, v]) => [k, round(v)])),
        runs,
      },
      rows: [
        {
          id: '15 saved tests',
          what: `merge-reports of ${SHARDS} shards × ${PER_SHARD} tests (${(bytes / 2 ** 20).toFixed(1)} MB of blobs), whole command: html / junit / json`,
          value: `${ms(cli.html, 0)} / ${ms(cli.junit, 0)} / ${ms(cli.json, 0)}`,
          vs: `read + merge ${ms(median(inProcess), 0)}; ${ms(cli.html / tests, 2)} per test (html)`,
          met: null,
        },
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
