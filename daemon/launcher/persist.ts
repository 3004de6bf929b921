/**
 * launched.json: the launched-instance table on disk, so a daemon that
 * crashed or handed over can be succeeded by one that re-adopts the games. Written atomically
 * (a random temp name opened O_EXCL|O_NOFOLLOW, then renamed), mode 0600, in a 0700 directory.
 *
 * Read back, nothing in it is believed blindly: the file must be ours (owner, mode, not a link);
 * a log path must lie inside logs/; a pid comes with its start time (re-adoption checks it). A
 * file that cannot be read as a table is not silently treated as empty (which would overwrite it
 * and orphan its games): it is moved aside and reported.
 */
import { renameSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { ensureDir } from '../../shared/paths.js';
import { readPrivateFile, writePrivateFile } from '../../shared/private-files.js';
import type { LaunchedInstance } from './types.js';

interface LaunchedFile {
  version: 1;
  savedAt: string;
  savedBy: number;
  instances: LaunchedInstance[];
}

export interface LaunchedRead {
  entries: LaunchedInstance[];
  /** entries dropped, and why (a log outside logs/, a bad pid...) */
  rejected: string[];
  /** the unreadable file was moved here */
  setAside?: string;
}

export function writeLaunched(file: string, instances: LaunchedInstance[]): void {
  ensureDir(dirname(file), 0o700);
  const body: LaunchedFile = { version: 1, savedAt: new Date().toISOString(), savedBy: process.pid, instances };
  writePrivateFile(file, JSON.stringify(body, null, 2) + '\n');
}

/** The entries of launched.json that may be believed; a missing file is an empty table. */
export function readLaunched(file: string, logsDir: string): LaunchedRead {
  let list: unknown;
  try {
    const text = readPrivateFile(file);
    if (text === undefined) return { entries: [], rejected: [] };
    list = (JSON.parse(text) as Partial<LaunchedFile> | null)?.instances;
    if (!Array.isArray(list)) throw new Error('it has no "instances" list');
  } catch (e) {
    const setAside = `${file}.bad-${Date.now()}`;
    try {
      renameSync(file, setAside);
    } catch {
      return { entries: [], rejected: [`${file}: ${(e as Error).message}`] };
    }
    return { entries: [], rejected: [`${file}: ${(e as Error).message}`], setAside };
  }
  const logs = resolve(logsDir) + sep;
  const entries: LaunchedInstance[] = [];
  const rejected: string[] = [];
  for (const e of list as Array<Partial<LaunchedInstance> | null>) {
    const why = !e || typeof e !== 'object'
      ? 'not an object'
      : !Number.isInteger(e.port) || e.port! < 1 || e.port! > 65535
        ? 'bad port'
        : !Number.isInteger(e.pid) || e.pid! <= 1
          ? 'bad pid'
          : typeof e.logFile !== 'string' || !resolve(e.logFile).startsWith(logs)
            ? `log file outside ${logsDir}`
            : e.pidStart !== undefined && !Number.isInteger(e.pidStart)
              ? 'bad pidStart'
              : undefined;
    if (why) rejected.push(`entry ${JSON.stringify(e).slice(0, 120)}: ${why}`);
    else entries.push(e as LaunchedInstance);
  }
  return { entries, rejected };
}
