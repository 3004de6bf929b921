/**
 * The self-registration registry (docs/CONTRACT.md, "Self-registration"): `<dir>/<pid>.json` files games write after
 * binding their port. Entries are advisory; this module only reads them. Anything odd (a bad
 * name, a broken or huge file, a dangling symlink) is skipped and counted, never fatal.
 */
import { lstat, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod/v4';

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
    const parsed = entrySchema.safeParse(JSON.parse(text));
    if (!parsed.success) return undefined;
    const { pid = pidSchema.safeParse(pidFromName).data, ...facts } = parsed.data;
    if (pid === undefined) return undefined;
    return { file, pid, ...dropUndefined(facts) };
  } catch {
    return undefined;
  }
}

const dropUndefined = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** A process id Linux could give (2 to 2^22): init and the process group are no game's. */
const pidSchema = z.number().int().min(2).max(4_194_304);

/** A hint field: taken when it fits, else left out (the entry still counts). */
const hint = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
const text = (max: number) => z.union([z.string(), z.number().transform(String)]).pipe(z.string().max(max));

/**
 * An entry as games write it (docs/CONTRACT.md, "Self-registration"): a port (a number, or its
 * digits as text) or it is no entry; the rest are hints, each dropped when it is not what it
 * should be, and the pid comes from the file's name when the content gives none.
 */
const entrySchema = z.object({
  port: z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d{1,5}$/)
        .transform(Number),
    ])
    .pipe(z.number().int().min(1).max(65535)),
  pid: hint(pidSchema),
  name: hint(text(200)),
  version: hint(text(100)),
  protocol: hint(z.number().int().nonnegative().max(1_000_000)),
  host: hint(z.string().max(255)),
  started: hint(z.string().max(100)),
  cwd: hint(z.string().max(4096)),
});

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
