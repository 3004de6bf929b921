/**
 * The self-registration registry (docs/CONTRACT.md, "Self-registration"): `<dir>/<pid>.json` files games write after
 * binding their port. Entries are advisory; this module only reads them. Anything odd (a bad
 * name, a broken or huge file, a dangling symlink) is skipped and counted, never fatal.
 */
import { lstat, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { validPort } from '../../shared/config.js';

/** An entry is a handful of fields; anything bigger is not an entry. */
export const MAX_ENTRY_BYTES = 64 * 1024;

export interface RegistryEntry {
  /** absolute path of the entry file */
  file: string;
  port: number;
  /** from the content, else from the file name */
  pid: number;
  name?: string;
  version?: string;
  protocol?: number;
  host?: string;
  started?: string;
  cwd?: string;
}

export interface RegistryRead {
  entries: RegistryEntry[];
  skipped: number;
  skippedFiles: string[];
}

const ENTRY_NAME = /^(\d+)\.json$/;

export async function readRegistry(dir: string): Promise<RegistryRead> {
  const out: RegistryRead = { entries: [], skipped: 0, skippedFiles: [] };
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return out; // no registry dir (or not readable) = an empty registry
  }
  const skip = (file: string) => {
    out.skipped++;
    out.skippedFiles.push(file);
  };
  await Promise.all(
    names.sort().map(async (n) => {
      const file = join(dir, n);
      const m = ENTRY_NAME.exec(n);
      if (!m) {
        // an editor's swap file or a writer's temp file is not an entry; a dotfile is not ours to count
        if (!n.startsWith('.')) skip(file);
        return;
      }
      const entry = await readEntry(file, Number(m[1]));
      if (entry) out.entries.push(entry);
      else skip(file);
    }),
  );
  out.entries.sort((a, b) => a.port - b.port || a.pid - b.pid);
  out.skippedFiles.sort();
  return out;
}

async function readEntry(file: string, pidFromName: number): Promise<RegistryEntry | undefined> {
  try {
    const st = await stat(file); // follows symlinks: a dangling one fails here
    if (!st.isFile() || st.size > MAX_ENTRY_BYTES) return undefined;
    const text = await readFile(file, 'utf8');
    if (text.length > MAX_ENTRY_BYTES) return undefined;
    const j = JSON.parse(text) as Record<string, unknown>;
    if (!j || typeof j !== 'object' || Array.isArray(j)) return undefined;
    const port = typeof j.port === 'string' && /^\d+$/.test(j.port) ? Number(j.port) : j.port;
    if (!validPort(port)) return undefined;
    const pid = typeof j.pid === 'number' && Number.isInteger(j.pid) && j.pid > 0 ? j.pid : pidFromName;
    const e: RegistryEntry = { file, port, pid };
    const s = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
    if (s(j.name) !== undefined) e.name = s(j.name);
    if (s(j.version) !== undefined) e.version = s(j.version);
    if (typeof j.protocol === 'number') e.protocol = j.protocol;
    if (typeof j.host === 'string') e.host = j.host;
    if (typeof j.started === 'string') e.started = j.started;
    if (typeof j.cwd === 'string') e.cwd = j.cwd;
    return e;
  } catch {
    return undefined;
  }
}

/** Delete one entry file (only when asked: prune). True when it is gone afterwards. */
export async function pruneEntry(file: string): Promise<boolean> {
  try {
    await lstat(file);
  } catch {
    return true;
  }
  try {
    await unlink(file);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
