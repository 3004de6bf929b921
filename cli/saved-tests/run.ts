/**
 * `game-bridge-mcp test [files or folders…]` (docs/TESTS.md, "Running"): finds the saved tests,
 * keeps this shard's and the --grep matches, runs them --workers at a time (each on a game of
 * its own), prints one line per test and the facts of each failure, writes the reports asked
 * for, and answers exit code 1 when any failed. Ctrl-C stops every game it started before it
 * exits.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { usageError } from '../../shared/errors.js';
import { selfCommand } from '../../shared/self-command.js';
import { readTestFile, TESTS_FOLDER } from '../../shared/test-file.js';
import { printableLines } from '../printable.js';
import { replayFile, type TestResult } from './replay.js';
import { checkedLines } from './results.js';
import { BLOB_FOLDER, writeBlob, type Shard } from './blob.js';
import { DEFAULT_OUTPUT, tracesFolder, writeReport, type Reporter } from './reporters.js';
import { TestTrace, traceStem, type TraceMode } from './trace.js';
import { TraceFiles } from './trace-files.js';

export interface TestCliOptions {
  paths: string[];
  /** blob: this shard's part of a run, for merge-reports */
  reporter?: Reporter | 'blob';
  output?: string;
  shard?: string;
  workers?: number;
  retries?: number;
  /** true: --update (values, baselines, renamed nodes); 'locators': --update=locators (renamed nodes only) */
  update?: boolean | 'locators';
  config?: string;
  grep?: string;
  compare?: string[];
  /** keep each test's trace: always, only a failed test's (the default), or none */
  trace?: TraceMode;
}

const DEFAULT_DIR = TESTS_FOLDER;
const SKIP_DIRS = new Set(['node_modules', '.git']);

/** Every `*.jsonl` under a `gamebridge-tests` folder below `dir` (or any `*.jsonl` when `dir` is one). */
function walk(dir: string, inTests: boolean, out: string[], depth = 0): void {
  if (depth > 12) return;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory() && !SKIP_DIRS.has(e.name)) walk(p, inTests || e.name === DEFAULT_DIR, out, depth + 1);
    else if (e.isFile() && inTests && e.name.endsWith('.jsonl')) out.push(p);
  }
}

export function discover(paths: string[], cwd = process.cwd()): string[] {
  const roots = paths.length ? paths : [cwd];
  const found: string[] = [];
  for (const p of roots) {
    const abs = resolve(cwd, p);
    if (!existsSync(abs))
      throw usageError(`test: ${p} does not exist (give test files, or folders holding gamebridge-tests/).`);
    if (statSync(abs).isDirectory()) walk(abs, abs.split(/[\\/]/).includes(DEFAULT_DIR), found);
    else found.push(abs);
  }
  return [...new Set(found)].sort();
}

/** `--shard i/n` as its two numbers (none: the whole run, 1/1). */
export function parseShard(shard: string | undefined): Shard {
  if (!shard) return { index: 1, total: 1 };
  const m = /^(\d+)\/(\d+)$/.exec(shard);
  const index = m ? Number(m[1]) : NaN;
  const total = m ? Number(m[2]) : NaN;
  if (!m || total < 1 || index < 1 || index > total)
    throw usageError(`test: --shard is i/n with 1 <= i <= n, e.g. --shard 2/4; got '${shard}'.`);
  return { index, total };
}

/** `i/n`: the i-th of n disjoint parts, every file in exactly one (round robin over the sorted list). */
export function shardOf(files: string[], shard: string | undefined): string[] {
  const { index, total } = parseShard(shard);
  return files.filter((_, k) => k % total === index - 1);
}

function nameOf(file: string): string {
  try {
    return readTestFile(file).header.name;
  } catch {
    return file;
  }
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
const show = (v: unknown, max = 600) => {
  const s = v === undefined ? 'nothing (absent)' : JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max)}…` : s;
};

/** A path as a shell word a person can paste. */
const quoted = (p: string) => (/^[\w./@+-]+$/.test(p) ? p : `'${p.replace(/'/g, "'\\''")}'`);

/** A failure as a person reads it under the ✗ line. */
export function failureText(r: TestResult, cwd = process.cwd()): string {
  const f = r.failure;
  if (!f) return '';
  const rel = relative(cwd, r.file) || r.file;
  const lines = [`    at ${rel}:${f.line}  ${f.step}`];
  if (f.nearest) lines.push(`    nearest:   ${f.nearest.length ? f.nearest.join('; ') : 'no node like it'}`);
  lines.push(...checkedLines(f, show).map((l) => `    ${l}`));
  lines.push(`    ${f.message.split('\n').join('\n    ')}`);
  if (f.state !== undefined) lines.push(`    state (${f.statePath}): ${show(f.state)}`);
  if (f.images) {
    lines.push(`    baseline: ${relative(cwd, f.images.baseline)}`);
    if (f.images.actual) lines.push(`    actual:   ${relative(cwd, f.images.actual)}`);
    if (f.images.diff) lines.push(`    diff:     ${relative(cwd, f.images.diff)}`);
  }
  return lines.join('\n');
}

/** The folder a run's traces go into, by its report's (reporters.ts); the list reporter's: the default HTML report's. */
export function runTracesFolder(opts: Pick<TestCliOptions, 'reporter' | 'output'>): string {
  if (opts.reporter === 'blob') return tracesFolder('blob', opts.output ?? BLOB_FOLDER);
  const reporter = opts.reporter && opts.reporter !== 'list' ? opts.reporter : 'html';
  return tracesFolder(reporter, (opts.reporter === reporter && opts.output) || DEFAULT_OUTPUT[reporter]);
}

/** The files this run takes: found, this shard's, and the --grep matches. */
function selectFiles(opts: TestCliOptions): string[] {
  const files = shardOf(discover(opts.paths), opts.shard);
  if (!opts.grep) return files;
  let re: RegExp;
  try {
    re = new RegExp(opts.grep, 'i');
  } catch (e) {
    throw usageError(`test: --grep is a regular expression: ${(e as Error).message}.`);
  }
  return files.filter((f) => re.test(nameOf(f)) || re.test(f));
}

/** Test names, steps and the game's answers come from files and games: printed inert. */
const out = { write: (text: string) => process.stdout.write(printableLines(text)) };

/**
 * Ctrl-C (or SIGTERM) while tests run: every running test ends at its next step and stops its
 * game (its proxy outlives the signal for that); a second Ctrl-C leaves at once.
 */
class Interrupt {
  readonly controller = new AbortController();
  interrupted = false;
  active = 0;
  private readonly onSignal = () => {
    if (this.interrupted) process.exit(130);
    this.interrupted = true;
    this.controller.abort();
    process.stderr.write(
      `${process.stderr.isTTY ? '\r\x1b[2K' : ''}Interrupted: stopping ${this.active} running test(s) and their games…\n`,
    );
  };

  constructor() {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  close(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}

/** Writes a test's trace when the mode keeps it; a trace an earlier run wrote for a passing test goes. */
function keepTrace(traces: TraceFiles, mode: TraceMode, r: TestResult, trace: TestTrace): void {
  const failed = r.flaky ? { ...r, ok: false, failure: r.flaky.failure } : r;
  try {
    if (mode === 'on' || !failed.ok) r.trace = traces.write(traceStem(r.file), trace.html(failed, failureText(failed)));
    else traces.drop(traceStem(r.file));
  } catch (e) {
    out.write(`    the trace of ${r.name} was not written: ${(e as Error).message}\n`);
  }
}

/** One test's lines: its verdict, re-bound steps, its failure (and a flaky test's first), its trace. */
export function resultLines(r: TestResult): string {
  const lines = [
    `${r.flaky ? '~' : r.ok ? '✓' : '✗'} ${r.name} (${secs(r.ms)})${r.updated ? ' updated' : ''}${r.flaky ? ` flaky: passed on retry ${r.flaky.retries} after failing` : ''}`,
  ];
  for (const b of r.rebound ?? []) lines.push(`    re-bound line ${b.line}: ${b.from} → ${b.to}`);
  if (!r.ok) lines.push(failureText(r));
  if (r.flaky) lines.push(failureText({ ...r, failure: r.flaky.failure }));
  if (r.trace && (!r.ok || r.flaky))
    lines.push(`    trace: ${quoted(relative(process.cwd(), r.trace))} (${selfCommand()} show-trace opens it)`);
  return lines.join('\n') + '\n';
}

/** What to do about the failures: re-bind a renamed node, or decide whether a changed value is a bug. */
function adviceLines(ran: TestResult[], config: string | undefined): string {
  const failedFiles = (kind: string) =>
    ran.filter((r) => r.failure?.kind === kind).map((r) => quoted(relative(process.cwd(), r.file) || r.file));
  const command = (flag: string, list: string[]) =>
    `${selfCommand()} test ${flag}${config ? ` --config ${quoted(config)}` : ''} ${list.join(' ')}`;
  let text = '';
  const gone = failedFiles('node-gone');
  if (gone.length)
    text += `A node a step names is gone. If the game renamed it on purpose, ${command('--update=locators', gone)} re-binds the step and changes no expected value.\n`;
  const elsewhere = failedFiles('began-elsewhere');
  if (elsewhere.length)
    text +=
      `A test that began on a game already running expects what that game had; a fresh launch may differ without any bug. Record ${elsewhere.length > 1 ? 'them' : 'it'} again from a launch (launch_instance, play, save_test),\n` +
      `or, if what a fresh launch does is right, ${command('--update', elsewhere)} writes it in and marks the test as starting at its launch.\n`;
  const outdated = failedFiles('value');
  if (outdated.length)
    text +=
      `An expected value differs: unless the game changed it on purpose, that is a bug to report, not a test to edit.\n` +
      `If the game changed on purpose, ${command('--update', outdated)} writes what it does now into ${outdated.length > 1 ? 'those tests' : 'that test'}.\n`;
  return text;
}

export async function runTests(opts: TestCliOptions): Promise<number> {
  if (opts.compare) {
    const { runCompare } = await import('./compare.js');
    return runCompare(opts.compare, opts.paths, opts);
  }
  const workers = Math.max(1, Math.min(16, Math.floor(opts.workers ?? 1)));
  const retries = Math.max(0, Math.min(10, Math.floor(opts.retries ?? 0)));
  const shard = parseShard(opts.shard);
  const files = selectFiles(opts);
  const config = opts.config ? resolve(process.cwd(), opts.config) : undefined;
  if (config && !existsSync(config)) throw usageError(`test: --config ${opts.config} does not exist.`);
  if (!files.length) {
    out.write(
      `No saved tests found${opts.paths.length ? ` in ${opts.paths.join(', ')}` : ' below this folder'} (gamebridge-tests/**/*.jsonl). An agent writes them with save_test; docs/TESTS.md shows the format.\n`,
    );
    // a shard with nothing to run still leaves its blob, so the merge knows it ran
    if (opts.reporter === 'blob')
      out.write(`${writeBlob(opts.output ?? BLOB_FOLDER, shard, [], { startedAt: new Date(), ms: 0 })}\n`);
    return opts.shard || opts.grep ? 0 : 1;
  }
  const tty = process.stderr.isTTY === true;
  const stop = new Interrupt();
  const traceMode: TraceMode = opts.trace ?? 'retain-on-failure';
  const traces = new TraceFiles(resolve(runTracesFolder(opts)));
  const results: TestResult[] = new Array(files.length);
  let next = 0;
  let done = 0;
  const t0 = Date.now();
  const progress = () => {
    if (tty) process.stderr.write(`\r\x1b[2K[${done}/${files.length}] running… ${secs(Date.now() - t0)}`);
  };
  const attempt = async (file: string) => {
    const trace = traceMode === 'off' ? undefined : new TestTrace(file, nameOf(file));
    return { r: await replayFile(file, { config, update: opts.update, signal: stop.controller.signal, trace }), trace };
  };
  const worker = async () => {
    while (next < files.length && !stop.interrupted) {
      const k = next++;
      progress();
      stop.active++;
      let { r, trace } = await attempt(files[k]);
      // a test that fails and then passes is flaky, not passed: its first failure (and its trace) is kept
      for (let retry = 1; !r.ok && retry <= retries && !stop.interrupted; retry++) {
        const again = await attempt(files[k]);
        if (again.r.ok) r = { ...again.r, flaky: { retries: retry, failure: r.failure! } };
        else ({ r, trace } = again);
      }
      stop.active--;
      if (stop.interrupted) return;
      if (trace) keepTrace(traces, traceMode, r, trace);
      results[k] = opts.shard ? { ...r, shard: `${shard.index}/${shard.total}` } : r;
      done++;
      if (tty) process.stderr.write('\r\x1b[2K');
      out.write(resultLines(r));
      progress();
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, files.length) }, worker));
  stop.close();
  if (stop.interrupted) {
    process.stderr.write('Interrupted: every game this run started is stopped.\n');
    return 130;
  }
  if (tty) process.stderr.write('\r\x1b[2K');
  const ran = results.filter(Boolean);
  const failed = ran.filter((r) => !r.ok).length;
  const flaky = ran.filter((r) => r.flaky).length;
  out.write(
    `\n${ran.length - failed - flaky} passed, ${retries ? `${flaky} flaky, ` : ''}${failed} failed (${secs(Date.now() - t0)})\n`,
  );
  if (opts.reporter === 'blob')
    out.write(
      `${writeBlob(opts.output ?? BLOB_FOLDER, shard, ran, { startedAt: new Date(t0), ms: Date.now() - t0 })}\n`,
    );
  else if (opts.reporter && opts.reporter !== 'list')
    out.write(`${writeReport(opts.reporter, opts.output ?? DEFAULT_OUTPUT[opts.reporter], ran)}\n`);
  out.write(adviceLines(ran, opts.config));
  return failed ? 1 : 0;
}
