/**
 * launched.json: the launched-instance table on disk, so a daemon that
 * crashed or handed over can be succeeded by one that re-adopts the games. Written
 * atomically (tmp + rename), mode 0600, in a 0700 directory.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensureDir } from '../../shared/paths.js';
import type { LaunchedInstance } from './types.js';

interface LaunchedFile {
  version: 1;
  savedAt: string;
  savedBy: number;
  instances: LaunchedInstance[];
}

export function writeLaunched(file: string, instances: LaunchedInstance[]): void {
  ensureDir(dirname(file), 0o700);
  const body: LaunchedFile = { version: 1, savedAt: new Date().toISOString(), savedBy: process.pid, instances };
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(body, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, file);
}

/** The entries of launched.json; a missing or unreadable file is an empty table. */
export function readLaunched(file: string): LaunchedInstance[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  const list = (raw as Partial<LaunchedFile> | null)?.instances;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (e): e is LaunchedInstance =>
      !!e && typeof e === 'object' && Number.isInteger(e.port) && Number.isInteger(e.pid) && e.pid > 0 && typeof e.logFile === 'string',
  );
}
