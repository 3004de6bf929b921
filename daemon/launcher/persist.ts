/**
 * launched.json: the launched-instance table on disk, so a daemon that crashed or handed over
 * can be succeeded by one that re-adopts the games, plus the exit records of games that exited
 * by themselves (docs/LAUNCHING.md), so their facts survive it. Written atomically (tmp +
 * rename), mode 0600, in a 0700 directory.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, relative, isAbsolute } from 'node:path';
import { ensureDir } from '../../shared/paths.js';
import type { ExitRecord } from './exits.js';
import type { LaunchedInstance } from './types.js';

interface LaunchedFile {
  version: 1;
  savedAt: string;
  savedBy: number;
  instances: LaunchedInstance[];
  exited?: ExitRecord[];
}

export function writeLaunched(file: string, instances: LaunchedInstance[], exited: ExitRecord[] = []): void {
  ensureDir(dirname(file), 0o700);
  const body: LaunchedFile = { version: 1, savedAt: new Date().toISOString(), savedBy: process.pid, instances, exited };
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(body, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, file);
}

/** The whole file: instances, exit records, when it was saved. Missing or unreadable → empty. */
export function readLaunchedFile(file: string, logsDir?: string): { instances: LaunchedInstance[]; exited: ExitRecord[]; savedAt?: string } {
  let raw: Partial<LaunchedFile> | null;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as Partial<LaunchedFile> | null;
  } catch {
    return { instances: [], exited: [] };
  }
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const instances = list(raw?.instances).filter(
    (e): e is LaunchedInstance =>
      !!e && typeof e === 'object' && isPid((e as LaunchedInstance).port) && isPid((e as LaunchedInstance).pid) && typeof (e as LaunchedInstance).logFile === 'string' &&
      ((e as LaunchedInstance).pgid === undefined || isPid((e as LaunchedInstance).pgid)),
  );
  const exited = list(raw?.exited).filter((e): e is ExitRecord => isExitRecord(e, logsDir));
  return { instances, exited, savedAt: typeof raw?.savedAt === 'string' ? raw.savedAt : undefined };
}

/** The entries of launched.json; a missing or unreadable file is an empty table. */
export function readLaunched(file: string): LaunchedInstance[] {
  return readLaunchedFile(file).instances;
}

const isPid = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0;

/** A record is believed only in its own shape, with its log inside logs/ (it is read back to agents). */
function isExitRecord(e: unknown, logsDir?: string): boolean {
  if (!e || typeof e !== 'object') return false;
  const r = e as ExitRecord;
  if (!isPid(r.port) || !isPid(r.pid) || typeof r.logFile !== 'string' || typeof r.startedAt !== 'string') return false;
  if (!Array.isArray(r.lastLines) || !r.lastLines.every((l) => typeof l === 'string')) return false;
  if (typeof r.uptimeMs !== 'number' || !['game', 'wrapper', 'unknown'].includes(r.statusFrom)) return false;
  if (logsDir) {
    const rel = relative(logsDir, r.logFile);
    if (!rel || rel.startsWith('..') || isAbsolute(rel)) return false;
  }
  return true;
}
