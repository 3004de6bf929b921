/**
 * Where a client's gamebridge.json is: the file named with --config / GAME_BRIDGE_CONFIG, or the
 * nearest one above the client's working directory. The walk up stops at a boundary: the home
 * directory, a repository root (a directory holding .git), a change of file system, and any
 * directory another user can write; a file found is used only when it, and every directory
 * above it, is trusted (shared/trust.ts). Node builtins only: the proxy reads it too (to know
 * which environment variables the launch declaration references).
 */
import { existsSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { distrust } from './trust.js';

export const DECLARATION_FILE = 'gamebridge.json';

export type Located =
  | { file: string; looked: string[] }
  | { file?: undefined; looked: string[]; /** why the walk ended where it did, when not at a boundary */ stopped?: string; refused?: { path: string; why: string } };

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
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const st = stat(dir);
    // A sticky world-writable directory (/tmp) lets others add entries, not replace ours.
    const why = st && st.mode & 0o1000 && (st.uid === 0 || st.uid === process.getuid?.()) ? undefined : distrust(dir, st);
    if (why) return { path: dir, why };
    if (dirname(dir) === dir) return undefined;
  }
}

/** The client's declaration, found as described above; `configPath` is resolved against `cwd`. */
export function locateDeclaration(cwd: string, configPath?: string): Located {
  if (configPath) {
    let file = resolve(cwd, configPath);
    if (stat(file)?.isDirectory()) file = join(file, DECLARATION_FILE);
    if (!stat(file)) return { looked: [file] };
    const refused = distrustFile(file);
    return refused ? { looked: [file], refused } : { file, looked: [file] };
  }
  const looked: string[] = [];
  const home = resolve(homedir());
  let dir = resolve(cwd);
  for (;;) {
    const st = stat(dir);
    const why = st ? distrust(dir, st) : 'it does not exist';
    if (why) return { looked, stopped: `${dir}: ${why}` };
    looked.push(dir);
    const file = join(dir, DECLARATION_FILE);
    if (stat(file)?.isFile()) {
      const refused = distrustFile(file);
      return refused ? { looked, refused } : { file, looked };
    }
    const up = dirname(dir);
    if (dir === home || up === dir || existsSync(join(dir, '.git')) || stat(up)?.dev !== st!.dev) return { looked };
    dir = up;
  }
}
