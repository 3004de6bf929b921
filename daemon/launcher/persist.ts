/**
 * launched.json: the launched-instance table on disk, so a daemon that crashed or handed over
 * can be succeeded by one that re-adopts the games, plus the exit records of games that exited
 * by themselves (docs/LAUNCHING.md), so their facts survive it. Written atomically (a random
 * temp name opened O_EXCL|O_NOFOLLOW, then renamed), mode 0600, in a 0700 directory.
 *
 * Read back, nothing in it is believed blindly: the file must be ours (owner, mode, not a link);
 * a log path must lie inside logs/; a pid comes with its start time (re-adoption checks it). A
 * file that cannot be read as a table is not silently treated as empty (which would overwrite it
 * and orphan its games): the daemon moves it aside and says so.
 */
import { renameSync } from 'node:fs';
import { dirname, isAbsolute, relative } from 'node:path';
import { ensureDir } from '../../shared/paths.js';
import { readPrivateFile, writePrivateFile } from '../../shared/private-files.js';
import { z } from 'zod/v4';
import { MAX_SCAN_PORTS } from '../../shared/config.js';
import { firstIssue, mustBe } from '../../shared/schema-words.js';
import { EXIT_TAIL_LINES, type ExitRecord } from './exit-records.js';
import type { LaunchedInstance } from './types.js';

interface LaunchedFile {
  version: 1;
  savedAt: string;
  savedBy: number;
  instances: LaunchedInstance[];
  exited?: ExitRecord[];
}

/*
 * What may be believed of the file. Every text is bounded (a path by PATH_MAX, the rest by what
 * a gamebridge.json could make of it), every pid names a process other than init, every port is
 * a port. Keys this daemon does not know are dropped. Entries are checked one by one, so one bad
 * entry costs only itself.
 */
const MAX_PATH = 4096;
const MAX_TEXT = 128 * 1024;
const MAX_ENTRIES = 1000;
const port = z.number().int().min(1).max(65535);
const pid = z.number().int().min(2);
const startTime = z.number().int().nonnegative();
const path = z.string().max(MAX_PATH);
const text = z.string().max(MAX_TEXT);
const time = z.string().max(100);

const webSchema = z.object({
  url: text,
  headless: z.boolean(),
  browser: z.object({ pid, pidStart: startTime.optional(), dir: path }),
  static: z.object({ root: path, port }).optional(),
  serverPgid: pid.optional(),
  serverStart: startTime.optional(),
  kit: z.literal(false).optional(),
  seed: z.string().max(200).optional(),
});

/** The facts of a launch, shared by an instance and its exit record. */
const launchFacts = {
  port,
  pid,
  pgid: pid.optional(),
  name: text,
  version: text,
  cwd: path,
  command: text,
  logFile: path,
  startedAt: time,
  owner: text.optional(),
  declaration: path,
  profile: text.optional(),
  index: z.number().int().nonnegative().optional(),
  lastCommand: z.object({ id: z.number().int().optional(), command: text, at: time }).optional(),
  portsTaken: z.array(port).max(MAX_SCAN_PORTS).optional(),
};

const instanceSchema = z.object({
  ...launchFacts,
  pidStart: startTime.optional(),
  readyInMs: z.number().nonnegative(),
  starting: z.literal(true).optional(),
  web: webSchema.optional(),
});

const exitCode = z.number().int().nullable();
const signal = z.string().max(100).nullable();
const exitRecordSchema = z.object({
  ...launchFacts,
  exitedAt: time.nullable(),
  aliveAt: time.optional(),
  uptimeMs: z.number().nonnegative(),
  exitCode,
  signal,
  statusFrom: z.enum(['game', 'wrapper', 'unknown']),
  wrapper: z.object({ pid, exitCode, signal }).optional(),
  lastLines: z.array(text).max(EXIT_TAIL_LINES),
  reason: text.optional(),
});

/** The file's frame; its entries are read one by one (`believed`). */
const fileSchema = z.object({
  savedAt: time.optional().catch(undefined),
  instances: z.array(z.unknown()).max(MAX_ENTRIES),
  exited: z.array(z.unknown()).optional().catch(undefined),
});

export interface LaunchedRead {
  instances: LaunchedInstance[];
  exited: ExitRecord[];
  savedAt?: string;
  /** entries dropped, and why (a log outside logs/, a bad pid...), or why the whole file was */
  rejected: string[];
  /** the unreadable file was moved here (only when asked to: the daemon's re-adoption) */
  setAside?: string;
}

export function writeLaunched(
  file: string,
  instances: LaunchedInstance[],
  exited: ExitRecord[] = [],
  stillOurs?: () => boolean,
): void {
  ensureDir(dirname(file), 0o700);
  const body: LaunchedFile = { version: 1, savedAt: new Date().toISOString(), savedBy: process.pid, instances, exited };
  writePrivateFile(file, JSON.stringify(body, null, 2) + '\n', 0o600, stillOurs);
}

/** Which process wrote launched.json last (its `savedBy`); undefined when missing or unreadable. */
function savedBy(file: string): number | undefined {
  try {
    const text = readPrivateFile(file);
    return text === undefined ? undefined : (JSON.parse(text) as Partial<LaunchedFile>).savedBy;
  } catch {
    return undefined;
  }
}

/**
 * The whole file: the instances and exit records that may be believed, when it was saved. A
 * missing file is an empty table; an unreadable one is empty too, and moved aside when
 * `setAsideBad` (the caller is about to write a new one).
 */
export function readLaunchedFile(file: string, logsDir: string, opts: { setAsideBad?: boolean } = {}): LaunchedRead {
  let raw: z.infer<typeof fileSchema>;
  try {
    const text = readPrivateFile(file);
    if (text === undefined) return { instances: [], exited: [], rejected: [] };
    const parsed = fileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(fileFault(parsed.error));
    raw = parsed.data;
  } catch (e) {
    const rejected = [`${file}: ${(e as Error).message}`];
    if (!opts.setAsideBad) return { instances: [], exited: [], rejected };
    const setAside = `${file}.bad-${Date.now()}`;
    try {
      renameSync(file, setAside);
    } catch {
      return { instances: [], exited: [], rejected };
    }
    return { instances: [], exited: [], rejected, setAside };
  }
  const rejected: string[] = [];
  const instances = believed(raw.instances, instanceSchema, logsDir, 'entry', rejected) as LaunchedInstance[];
  // exit records are history: past the bound the oldest go, and the file says how many did
  const records = raw.exited ?? [];
  if (records.length > MAX_ENTRIES)
    rejected.push(`${records.length - MAX_ENTRIES} oldest exit records (more than ${MAX_ENTRIES} listed)`);
  const exited = believed(
    records.slice(-MAX_ENTRIES),
    exitRecordSchema,
    logsDir,
    'exit record',
    rejected,
  ) as ExitRecord[];
  return { instances, exited, savedAt: raw.savedAt, rejected };
}

/** The items of `list` in `schema`'s shape with their log inside `logsDir`; each other one is reported in `rejected`. */
function believed(list: unknown[], schema: z.ZodType, logsDir: string, what: string, rejected: string[]): unknown[] {
  const out: unknown[] = [];
  for (const e of list) {
    const parsed = schema.safeParse(e);
    const why = parsed.success
      ? inLogs((parsed.data as { logFile: string }).logFile, logsDir)
        ? undefined
        : `log file outside ${logsDir}`
      : entryFault(parsed.error, e);
    if (why) rejected.push(`${what} ${JSON.stringify(e)?.slice(0, 120)}: ${why}`);
    else out.push(parsed.data);
  }
  return out;
}

/** Inside `logsDir` (the only files instance_log may return). */
function inLogs(file: string, logsDir: string): boolean {
  const rel = relative(logsDir, file);
  return !!rel && !rel.startsWith('..') && !isAbsolute(rel);
}

/** Why a whole file is not a table. */
function fileFault(error: z.ZodError): string {
  const issue = firstIssue(error.issues);
  if (issue.code === 'too_big') return `it lists more than ${MAX_ENTRIES} entries`;
  return 'it has no "instances" list';
}

/** Why an entry may not be believed: "bad port (must be at most 65535)", "not an object". */
function entryFault(error: z.ZodError, entry: unknown): string {
  const issue = firstIssue(error.issues);
  if (!issue.path.length) return 'not an object';
  const value = issue.path.reduce<unknown>((v, k) => Object(v)[k as string], entry);
  return `bad ${issue.path.join('.')} (${mustBe(issue, value) ?? issue.message})`;
}

/**
 * When launched.json is written: at once (a launch, a stop, an exit), or within `delayMs` for a
 * command confirmation (many a second); never once disposed (a handover: the file is the
 * successor's), never without persistence (the in-process server), never after this daemon lost
 * the home's lock (`mayWrite`).
 */
export class LaunchedWriter {
  private timer?: NodeJS.Timeout;
  private disposed = false;

  constructor(
    private readonly file: string,
    private readonly enabled: boolean,
    private readonly mayWrite: (() => boolean) | undefined,
    private readonly snapshot: () => { instances: LaunchedInstance[]; exited: ExitRecord[] },
  ) {}

  /** Write now (and drop a pending delayed write). */
  save(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.mayWriteNow()) return;
    const { instances, exited } = this.snapshot();
    writeLaunched(this.file, instances, exited, () => this.mayWriteNow());
  }

  /**
   * The file again when another process wrote it last (the lock holder calls this every second):
   * a daemon frozen in the middle of a save, between its lock check and its rename, finishes
   * that one write when it wakes, before it sees the lock is gone; the holder puts its own table back.
   */
  repair(): boolean {
    if (!this.mayWriteNow()) return false;
    const by = savedBy(this.file);
    if (by === undefined || by === process.pid) return false;
    this.save();
    return true;
  }

  private mayWriteNow(): boolean {
    return !this.disposed && this.enabled && this.mayWrite?.() !== false;
  }

  /** Write within `delayMs`, once for however many calls until then. */
  saveSoon(delayMs: number): void {
    if (this.timer || !this.enabled) return;
    this.timer = setTimeout(() => this.save(), delayMs);
    this.timer.unref();
  }

  /** Write no more. */
  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
