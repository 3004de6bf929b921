/** Part 2 of the contract: the self-registration entry `<registry>/<pid>.json`. */
import { mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registryDir, type Env } from '../../shared/paths.js';

export interface RegistryEntry {
  name: string;
  version: string;
  protocol: number;
  port: number;
  pid: number;
  host: '127.0.0.1';
  started: string;
  cwd: string;
}

/**
 * Writes the entry (atomically: temp file + rename, so a reader never sees half of it) and
 * returns its path, or null when it could not: a registry failure must never break the game,
 * so it costs one stderr line and nothing else.
 */
export function writeRegistryEntry(entry: RegistryEntry, env: Env, warn: (line: string) => void): string | null {
  const dir = registryDir(env);
  const file = join(dir, `${entry.pid}.json`);
  const tmp = `${file}.${process.hrtime.bigint()}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(tmp, `${JSON.stringify(entry, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
    return file;
  } catch (e) {
    removeQuietly(tmp);
    warn(
      `could not write the registry entry ${file} (${(e as Error).message}); the game keeps running, discovery falls back to port scans`,
    );
    return null;
  }
}

export function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    /* already gone, or never written */
  }
}
