/**
 * The bridge's own files in GAME_BRIDGE_HOME, on a machine shared with other users: its
 * directories must be its own and closed to others, and a file is replaced by writing a temp
 * file with a random name that must not exist yet and is never reached through a symbolic link
 * (O_CREAT|O_EXCL|O_NOFOLLOW), then renamed over the target. Node builtins only.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';

const myUid = () => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/** A directory the bridge may not use; the message says what is wrong and how to fix it. */
export class UnsafeDirError extends Error {}

/**
 * mkdir -p `dir` (mode 0700) and make sure it is ours to keep secrets in: a real directory
 * (not a link), owned by this user, not writable by group or others. Read/search bits for
 * others on a directory we own are taken away (chmod 0700), as before.
 */
export function ensurePrivateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return dir;
  const st = lstatSync(dir);
  const fix = `Remove it (or point GAME_BRIDGE_HOME at a directory of your own), e.g. \`rm -rf '${dir}'\`; the bridge recreates it with mode 0700.`;
  if (!st.isDirectory())
    throw new UnsafeDirError(
      `${dir} is not a directory (a symbolic link or a file): the bridge keeps its token there. ${fix}`,
    );
  if (st.uid !== myUid())
    throw new UnsafeDirError(
      `${dir} is owned by uid ${st.uid}, not by you (uid ${myUid()}): its owner could read the bridge's token and plant files in it. ${fix}`,
    );
  if (st.mode & 0o022) {
    throw new UnsafeDirError(
      `${dir} is writable by ${st.mode & 0o002 ? 'every user' : 'its group'} (mode ${(st.mode & 0o777).toString(8)}): anyone who can write there could plant files the bridge reads. ` +
        `If nothing in it is foreign, \`chmod 700 '${dir}'\`; otherwise: ${fix}`,
    );
  }
  if (st.mode & 0o077) chmodSync(dir, 0o700);
  return dir;
}

/**
 * Replace `file` with `data` atomically: random temp name, O_EXCL|O_NOFOLLOW, `mode`, rename.
 * `stillOurs`, asked just before the rename, can call the write off (false is returned then).
 */
export function writePrivateFile(file: string, data: string, mode = 0o600, stillOurs?: () => boolean): boolean {
  const tmp = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  const fd = openSync(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    mode,
  );
  try {
    writeSync(fd, data);
  } finally {
    closeSync(fd);
  }
  // Asked as late as possible: a process frozen between this check and the rename is the only gap.
  if (stillOurs && !stillOurs()) {
    unlinkSync(tmp);
    return false;
  }
  try {
    renameSync(tmp, file);
  } catch (e) {
    unlinkSync(tmp);
    throw e;
  }
  return true;
}

/**
 * Read one of our own files: not through a link, owned by this user, not writable by others.
 * Undefined when missing; throws (with the reason) when it exists but may not be believed.
 */
export function readPrivateFile(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new Error(code === 'ELOOP' ? `${file} is a symbolic link` : `${file} cannot be read (${code})`);
  }
  try {
    const st = fstatSync(fd);
    if (process.platform !== 'win32') {
      if (st.uid !== myUid()) throw new Error(`${file} is owned by uid ${st.uid}, not by you`);
      if (st.mode & 0o022) throw new Error(`${file} is writable by others (mode ${(st.mode & 0o777).toString(8)})`);
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
