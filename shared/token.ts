/**
 * The daemon's bearer token, kept in GAME_BRIDGE_HOME/daemon/token and reused by every daemon
 * of that home: an HTTP client stores it once beside the URL (docs/DECISIONS.md, "Protocol
 * versions and HTTP"), so a daemon restart must not change it.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, linkSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { readPrivateFile } from './private-files.js';
import { usageError } from './errors.js';
import { ensureDir, type HomePaths } from './paths.js';

const TOKEN_RE = /^[0-9a-f]{64}$/;

/** The home's token, created (32 random bytes, hex, mode 0600) when there is none yet. */
export function readOrCreateToken(paths: HomePaths): string {
  const existing = readToken(paths);
  if (existing) return existing;
  ensureDir(paths.daemonDir);
  // A fresh name that must not exist and is never reached through a link (a planted symlink).
  const tmp = `${paths.tokenFile}.${randomBytes(8).toString('hex')}.tmp`;
  const fd = openSync(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    0o600,
  );
  try {
    writeSync(fd, randomBytes(32).toString('hex') + '\n');
  } finally {
    closeSync(fd);
  }
  try {
    // link() fails when another process created the token first: theirs wins, both read it.
    linkSync(tmp, paths.tokenFile);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    unlinkSync(tmp);
  }
  const token = readToken(paths);
  if (!token)
    throw usageError(
      `${paths.tokenFile} does not hold a token (64 hex digits). Delete it: the next daemon writes a new one.`,
    );
  return token;
}

/** The token on disk, or undefined when missing or malformed. */
export function readToken(paths: HomePaths): string | undefined {
  try {
    const text = (readPrivateFile(paths.tokenFile) ?? '').trim();
    return TOKEN_RE.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}
