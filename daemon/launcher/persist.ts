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
import type { ExitRecord } from './exit-records.js';
import type { LaunchedInstance } from './types.js';

interface LaunchedFile {
  version: 1;
  savedAt: string;
  savedBy: number;
  instances: LaunchedInstance[];
  exited?: ExitRecord[];
}

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
  let raw: Partial<LaunchedFile>;
  try {
    const text = readPrivateFile(file);
    if (text === undefined) return { instances: [], exited: [], rejected: [] };
    raw = JSON.parse(text) as Partial<LaunchedFile>;
    if (!Array.isArray(raw?.instances)) throw new Error('it has no "instances" list');
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
  const instances: LaunchedInstance[] = [];
  for (const e of raw.instances as Array<Partial<LaunchedInstance> | null>) {
    const why = instanceFault(e, logsDir);
    if (why) rejected.push(`entry ${JSON.stringify(e).slice(0, 120)}: ${why}`);
    else instances.push(e as LaunchedInstance);
  }
  const exited = (Array.isArray(raw.exited) ? raw.exited : []).filter((e): e is ExitRecord => isExitRecord(e, logsDir));
  return { instances, exited, savedAt: typeof raw.savedAt === 'string' ? raw.savedAt : undefined, rejected };
}

const isPid = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 1;
const isPort = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 65535;

/** Inside `logsDir` (the only files instance_log may return). */
function inLogs(file: unknown, logsDir: string): boolean {
  if (typeof file !== 'string') return false;
  const rel = relative(logsDir, file);
  return !!rel && !rel.startsWith('..') && !isAbsolute(rel);
}

/** Why an instance entry may not be believed, or undefined. */
function instanceFault(e: Partial<LaunchedInstance> | null, logsDir: string): string | undefined {
  if (!e || typeof e !== 'object') return 'not an object';
  if (!isPort(e.port)) return 'bad port';
  if (!isPid(e.pid) || (e.pgid !== undefined && !isPid(e.pgid))) return 'bad pid';
  if (e.pidStart !== undefined && !Number.isInteger(e.pidStart)) return 'bad pidStart';
  if (!inLogs(e.logFile, logsDir)) return `log file outside ${logsDir}`;
  return undefined;
}

/** A record is believed only in its own shape, with its log inside logs/ (it is read back to agents). */
function isExitRecord(e: unknown, logsDir: string): boolean {
  if (!e || typeof e !== 'object') return false;
  const r = e as ExitRecord;
  if (!isPid(r.port) || !isPid(r.pid) || typeof r.logFile !== 'string' || typeof r.startedAt !== 'string') return false;
  if (!Array.isArray(r.lastLines) || !r.lastLines.every((l) => typeof l === 'string')) return false;
  if (typeof r.uptimeMs !== 'number' || !['game', 'wrapper', 'unknown'].includes(r.statusFrom)) return false;
  return inLogs(r.logFile, logsDir);
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
