/**
 * Files the bridge reads and writes in a user's project (`.mcp.json`, gamebridge.json, a
 * SKILL.md, saved tests and their screenshots), on a machine shared with other users: a folder
 * another user can write is refused, a symbolic link is refused by its name (never read, never
 * written through), a file another user could have written is not believed, and a file is
 * replaced through a temp file with a random name created exclusively and without following
 * links, synced, then renamed over it, keeping the mode it had. Node builtins only.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { distrustFolder } from './declaration-path.js';
import { usageError } from './errors.js';
import { distrust, trustFix } from './trust.js';

const lstat = (p: string): Stats | undefined => {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
};

/** The refusal for a link where a file or folder of the project was expected. */
function linkRefused(path: string, what: string): Error {
  let to = '';
  try {
    to = ` (to ${readlinkSync(path)})`;
  } catch {
    /* gone meanwhile */
  }
  return usageError(
    `${path} is a symbolic link${to}; ${what}. Replace the link with a plain ${lstat(path)?.isDirectory() ? 'folder' : 'file'} (or remove it), then run this again.`,
    { file: path },
  );
}

/** Refuses `dir` when it, or a folder above it, can be written by another user (shared/trust.ts). */
export function checkFolder(dir: string, what = 'nothing was written'): void {
  if (!lstat(dir)) throw usageError(`${dir} does not exist; ${what}. Create it, then run this again.`, { file: dir });
  const refused = distrustFolder(dir);
  if (refused)
    throw usageError(
      `${refused.path} can be changed by another user (${refused.why}), so ${dir} is not safe to write in; ${what}. ${trustFix(refused.path)}`,
      { file: refused.path },
    );
}

/**
 * The folder `rel` below `root`, created where missing: every part of it a real folder (a link
 * is refused by its name) that no other user can write. Answers its path.
 */
export function projectFolder(root: string, rel: string, what = 'nothing was written'): string {
  const parts = relative(root, resolve(root, rel)).split(sep).filter(Boolean);
  if (parts[0] === '..') throw usageError(`${rel} is outside ${root}; ${what}.`, { file: resolve(root, rel) });
  let dir = root;
  checkFolder(dir, what);
  for (const part of parts) {
    dir = join(dir, part);
    let st = lstat(dir);
    if (!st) {
      mkdirSync(dir);
      st = lstatSync(dir);
    }
    if (st.isSymbolicLink()) throw linkRefused(dir, what);
    if (!st.isDirectory()) throw usageError(`${dir} is not a folder; ${what}.`, { file: dir });
    checkFolder(dir, what);
  }
  return dir;
}

/**
 * The folder `dir` anywhere (a report's, its traces'), created where missing as projectFolder
 * makes one below the nearest folder that exists; that folder and those above it no other user
 * can write, and it is no other user's link (one planted in a sticky /tmp).
 */
export function outputFolder(dir: string, what = 'nothing was written'): string {
  const full = resolve(dir);
  let root = full;
  while (!lstat(root) && dirname(root) !== root) root = dirname(root);
  const st = lstat(root);
  const me = process.getuid?.();
  if (st?.isSymbolicLink() && me !== undefined && st.uid !== me && st.uid !== 0) throw linkRefused(root, what);
  projectFolder(root, relative(root, full), what);
  if (!statSync(full).isDirectory()) throw usageError(`${full} is not a folder; ${what}.`, { file: full });
  return full;
}

/**
 * A project file's bytes, or undefined when there is none: refused when it is a link, not a
 * regular file, bigger than `maxBytes`, or another user's (owned by them, or writable by others).
 */
export function readProjectFile(file: string, maxBytes: number, what = 'nothing was read'): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // a dangling link is a link too: what it names would be created elsewhere
      if (lstat(file)?.isSymbolicLink()) throw linkRefused(file, what);
      return undefined;
    }
    if (code === 'ELOOP' || code === 'EMLINK') throw linkRefused(file, what);
    throw usageError(`${file}: cannot read it (${code ?? (e as Error).message}); ${what}.`, { file });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw usageError(`${file} is not a regular file; ${what}.`, { file });
    const why = distrust(file, st);
    if (why) throw usageError(`${file} is not believed: ${why}; ${what}. ${trustFix(file)}`, { file });
    if (st.size > maxBytes)
      throw usageError(`${file} is ${st.size} bytes, more than the ${maxBytes} allowed; ${what}.`, { file });
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let n = 0;
    for (let got = 1; got > 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, n);
    if (n > maxBytes) throw usageError(`${file} is more than the ${maxBytes} bytes allowed; ${what}.`, { file });
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replace (or create) `file` with `data`: its folder must be one no other user can write, a link
 * at its name is refused, and the new file keeps the mode of the one it replaces (`mode`, less
 * the umask, for a new one).
 */
export function writeProjectFile(file: string, data: string | Buffer, mode = 0o644): void {
  const dir = dirname(file);
  checkFolder(dir);
  const st = lstat(file);
  if (st?.isSymbolicLink()) throw linkRefused(file, 'nothing was written');
  if (st && !st.isFile()) throw usageError(`${file} is not a regular file; nothing was written.`, { file });
  const tmp = join(dir, `.${basename(file)}.${randomBytes(8).toString('hex')}.tmp`);
  const fd = openSync(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    st ? st.mode & 0o777 : mode,
  );
  try {
    try {
      // the umask may take bits off the old mode at open; the old file's mode is kept exactly
      if (st) fchmodSync(fd, st.mode & 0o777);
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* renamed, or never made */
    }
    throw e;
  }
}
