/**
 * Where a client's gamebridge.json is: the file named with --config / GAME_BRIDGE_CONFIG, or the
 * nearest one above the client's working directory. The walk up stops at a boundary: the home
 * directory, a repository root (a directory holding .git), a change of file system, and any
 * directory another user can write; a file found is used only when it, and every directory
 * above it, is trusted (shared/trust.ts). Node builtins only: the proxy reads it too (to know
 * which environment variables the launch declaration references).
 */
import { existsSync, realpathSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { distrust } from './trust.js';

export const DECLARATION_FILE = 'gamebridge.json';

/** What the lookup found: `file` when there is a declaration to use. */
export interface Located {
  file?: string;
  looked: string[];
  /** why the walk ended where it did, when not at a boundary */
  stopped?: string;
  /** a declaration was found but is not believed: `path` (it or a directory above it) is not trusted */
  refused?: { file: string; path: string; why: string };
}

const stat = (p: string): Stats | undefined => {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
};

/** Why a file found for a client may not be used: it or a directory above it is not trusted. */
export function distrustFile(file: string): { path: string; why: string } | undefined {
  const own = distrust(file);
  if (own) return { path: file, why: own };
  return distrustFolder(dirname(file));
}

/** Why a folder may not be believed: it or a folder above it is not trusted. */
export function distrustFolder(folder: string): { path: string; why: string } | undefined {
  for (let dir = resolve(folder); ; dir = dirname(dir)) {
    const st = stat(dir);
    // A sticky world-writable directory (/tmp) lets others add entries, not replace ours.
    const why =
      st && st.mode & 0o1000 && (st.uid === 0 || st.uid === process.getuid?.()) ? undefined : distrust(dir, st);
    if (why) return { path: dir, why };
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The client's declaration, found as described above; `configPath` is resolved against `cwd`.
 * `home` is the client's home directory (its HOME), which may not be the daemon's.
 */
export function locateDeclaration(cwd: string, configPath?: string, home = homedir()): Located {
  if (configPath) {
    let file = resolve(cwd, configPath);
    if (stat(file)?.isDirectory()) file = join(file, DECLARATION_FILE);
    if (!stat(file)) return { looked: [file] };
    const refused = distrustFile(file);
    return refused ? { looked: [file], refused: { file, ...refused } } : { file, looked: [file] };
  }
  const looked: string[] = [];
  const homeDir = resolve(home);
  let dir = resolve(cwd);
  for (;;) {
    const st = stat(dir);
    const why = st ? distrust(dir, st) : 'it does not exist';
    if (why) return { looked, stopped: `${dir}: ${why}` };
    looked.push(dir);
    const file = join(dir, DECLARATION_FILE);
    if (stat(file)?.isFile()) {
      const refused = distrustFile(file);
      return refused ? { looked, refused: { file, ...refused } } : { file, looked };
    }
    const up = dirname(dir);
    if (dir === homeDir || up === dir || existsSync(join(dir, '.git')) || stat(up)?.dev !== st!.dev) return { looked };
    dir = up;
  }
}

/**
 * The client's project: the nearest repository root above `cwd` (within the walk's boundaries),
 * else the directory of the declaration the walk finds, else `cwd` itself. A declaration named
 * in a tool call must lie inside it (the agent names files; the user chose the project).
 */
export function projectRoot(cwd: string, home = homedir()): string {
  const start = resolve(cwd);
  const homeDir = resolve(home);
  let dir = start;
  for (;;) {
    const st = stat(dir);
    if (!st || distrust(dir, st)) break;
    if (existsSync(join(dir, '.git'))) return dir;
    const up = dirname(dir);
    if (dir === homeDir || up === dir || stat(up)?.dev !== st.dev) break;
    dir = up;
  }
  const found = locateDeclaration(start, undefined, home).file;
  return found ? dirname(found) : start;
}

/** Is `file` inside `root` (links resolved)? */
export function inside(root: string, file: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const r = real(root);
  const f = real(file);
  return f === r || f.startsWith(r.endsWith(sep) ? r : r + sep);
}
