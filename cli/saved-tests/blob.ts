/**
 * Blob reports (docs/TESTS.md, "Sharding in CI"): what one shard of a run leaves for
 * `merge-reports`. `test --shard i/n --reporter blob --output dir/` writes
 * `dir/blob-<i>-of-<n>.jsonl`: a header line (the format version, the tool's version, the shard)
 * and one line per test with everything the reporters show (outcome, steps, failure, timings,
 * flakiness) and the files they show, inlined (a failure's pictures, the test's trace), since the
 * machine that merges has none of the shard's files. Reading a blob checks every line; a blob of another format version, or one
 * that is not a blob, is refused naming the file (and line), and nothing is merged.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { z } from 'zod/v4';
import { usageError } from '../../shared/errors.js';
import { outputFolder, readProjectFile, writeProjectFile } from '../../shared/project-files.js';
import { VERSION } from '../../shared/version.js';
import type { Failure, TestResult } from './replay.js';
import { MAX_BASELINE_BYTES } from './screenshot.js';

/** The blob format this build writes and reads; a change to what a line holds bumps it. */
export const BLOB_FORMAT = 1;
/** A blob is read whole: bounded so a stray file cannot exhaust the merging machine. */
export const MAX_BLOB_BYTES = 512 << 20;
/** A trace travels in its blob up to this size (its screenshots are bounded below it). */
export const MAX_TRACE_BYTES = 96 << 20;
/** Where `--reporter blob` writes without --output. */
export const BLOB_FOLDER = 'blob-report';
/** The files `merge-reports` takes from a folder it is given. */
export const BLOB_NAME = /^blob-\d+-of-\d+\.jsonl$/;

export interface Shard {
  index: number;
  total: number;
}

const shardSchema = z.strictObject({ index: z.int().min(1), total: z.int().min(1) });

const headerSchema = z.strictObject({
  gamebridgeBlob: z.literal(BLOB_FORMAT),
  /** the game-bridge-mcp version that wrote it */
  tool: z.string(),
  shard: shardSchema,
  /** when the shard's run started (ISO time) and its wall time */
  startedAt: z.string(),
  ms: z.number().min(0),
});
export type BlobHeader = z.infer<typeof headerSchema>;

const imagesSchema = z.strictObject({
  baseline: z.string(),
  actual: z.string().optional(),
  diff: z.string().optional(),
});
const failureSchema = z.looseObject({
  line: z.int().min(0),
  step: z.string(),
  message: z.string(),
  condition: z.string().optional(),
  expected: z.string().optional(),
  actual: z.unknown().optional(),
  state: z.unknown().optional(),
  statePath: z.string().optional(),
  images: imagesSchema.optional(),
});
const resultSchema = z.looseObject({
  file: z.string().min(1),
  name: z.string(),
  ok: z.boolean(),
  ms: z.number().min(0),
  steps: z.array(z.strictObject({ line: z.int().min(0), text: z.string(), ok: z.boolean(), ms: z.number() })),
  failure: failureSchema.optional(),
  updated: z.boolean().optional(),
  timing: z.string().optional(),
  flaky: z.strictObject({ retries: z.int().min(1), failure: failureSchema }).optional(),
  shard: z.string().optional(),
  trace: z.string().optional(),
});
/** A test's line: its result (paths relative to the shard's working folder) and the pictures it names. */
const lineSchema = z.strictObject({
  test: resultSchema,
  /** each picture the result names, by that name, as base64 */
  attachments: z.record(z.string(), z.base64()).default({}),
});
export type BlobTest = { test: TestResult; attachments: Record<string, string> };

/** The failures of a result whose pictures travel with it. */
const failuresOf = (r: TestResult): Failure[] => [r.failure, r.flaky?.failure].filter((f) => f !== undefined);

/** A path as the merging machine can place it: relative to the shard's working folder, with `/`. */
const portable = (p: string, cwd: string) => (isAbsolute(p) ? relative(cwd, p) || p : p).split(sep).join('/');

function withPaths(r: TestResult, map: (p: string) => string): TestResult {
  const f = (x: Failure | undefined): Failure | undefined =>
    x?.images
      ? {
          ...x,
          images: {
            baseline: map(x.images.baseline),
            ...(x.images.actual ? { actual: map(x.images.actual) } : {}),
            ...(x.images.diff ? { diff: map(x.images.diff) } : {}),
          },
        }
      : x;
  const out: TestResult = { ...r, file: map(r.file) };
  if (r.trace) out.trace = map(r.trace);
  if (r.failure) out.failure = f(r.failure);
  if (r.flaky) out.flaky = { ...r.flaky, failure: f(r.flaky.failure)! };
  return out;
}

/** The blob's file name for a shard. */
export const blobName = (s: Shard) => `blob-${s.index}-of-${s.total}.jsonl`;

/** Write one shard's blob into `dir`; the line that says where it went. */
export function writeBlob(
  dir: string,
  shard: Shard,
  results: TestResult[],
  run: { startedAt: Date; ms: number },
  cwd = process.cwd(),
): string {
  const header: BlobHeader = {
    gamebridgeBlob: BLOB_FORMAT,
    tool: VERSION,
    shard,
    startedAt: run.startedAt.toISOString(),
    ms: run.ms,
  };
  const lines = [JSON.stringify(header)];
  for (const r of results) {
    const attachments: Record<string, string> = {};
    const attach = (p: string, max: number) => {
      // the test's own files only, as the HTML report copies them: never one a link names
      let bytes: Buffer | undefined;
      try {
        bytes = readProjectFile(p, max);
      } catch {
        bytes = undefined;
      }
      if (bytes) attachments[portable(p, cwd)] = bytes.toString('base64');
    };
    for (const f of failuresOf(r)) for (const p of Object.values(f.images ?? {})) attach(p, MAX_BASELINE_BYTES);
    if (r.trace) attach(r.trace, MAX_TRACE_BYTES);
    lines.push(JSON.stringify({ test: withPaths(r, (p) => portable(p, cwd)), attachments }));
  }
  const file = join(outputFolder(dir), blobName(shard));
  writeProjectFile(file, lines.join('\n') + '\n');
  return `Blob report: ${file} (merge the shards' blobs with merge-reports)`;
}

export interface Blob {
  file: string;
  header: BlobHeader;
  tests: BlobTest[];
}

const refuse = (file: string, line: number | undefined, why: string) =>
  usageError(
    `merge-reports: ${file}${line ? `:${line}` : ''}: ${why}; nothing was merged. A blob is what \`test --reporter blob\` writes (docs/TESTS.md).`,
    { file },
  );

const issue = (e: z.ZodError) => {
  const i = e.issues[0];
  return `${i.path.length ? `'${i.path.join('.')}': ` : ''}${i.message}`;
};

/** One blob, checked line by line. */
export function readBlob(file: string): Blob {
  const buf = readProjectFile(file, MAX_BLOB_BYTES, 'nothing was merged');
  if (!buf) throw refuse(file, undefined, 'there is no such file');
  const lines = buf.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const json = (k: number): unknown => {
    try {
      return JSON.parse(lines[k]);
    } catch (e) {
      throw refuse(file, k + 1, `not JSON (${(e as Error).message})`);
    }
  };
  const first = json(0) as { gamebridgeBlob?: unknown; tool?: unknown } | null;
  if (typeof first !== 'object' || first === null || typeof first.gamebridgeBlob !== 'number')
    throw refuse(file, 1, 'not a game-bridge-mcp blob (its first line has no gamebridgeBlob)');
  if (first.gamebridgeBlob !== BLOB_FORMAT)
    throw usageError(
      `merge-reports: ${file}: blob format ${first.gamebridgeBlob}${typeof first.tool === 'string' ? ` (written by game-bridge-mcp ${first.tool.slice(0, 40)})` : ''}, this game-bridge-mcp ${VERSION} reads ${BLOB_FORMAT}; merge with the version that wrote it. Nothing was merged.`,
      { file },
    );
  const header = headerSchema.safeParse(first);
  if (!header.success) throw refuse(file, 1, issue(header.error));
  if (header.data.shard.index > header.data.shard.total)
    throw refuse(file, 1, `shard ${header.data.shard.index}/${header.data.shard.total} is not one of its run's`);
  const tests: BlobTest[] = [];
  for (let k = 1; k < lines.length; k++) {
    const t = lineSchema.safeParse(json(k));
    if (!t.success) throw refuse(file, k + 1, issue(t.error));
    tests.push(t.data as BlobTest);
  }
  return { file, header: header.data, tests };
}

/** The blobs a path names: the file itself, or the `blob-*.jsonl` files in a folder and the folders in it (an artifact each). */
export function blobFiles(path: string): string[] {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) throw usageError(`merge-reports: ${path} does not exist; nothing was merged.`, { file: path });
  if (!st.isDirectory()) return [path];
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory() && depth < 2) walk(join(dir, e.name), depth + 1);
      else if (e.isFile() && BLOB_NAME.test(e.name)) found.push(join(dir, e.name));
    }
  };
  walk(path, 0);
  if (!found.length)
    throw usageError(
      `merge-reports: ${path} holds no blob (blob-<i>-of-<n>.jsonl, what \`test --reporter blob --output ${basename(path)}\` writes); nothing was merged.`,
      { file: path },
    );
  return found;
}
