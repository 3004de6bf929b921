/**
 * A print of a game's code as it is on disk: the size and modification time of every file under
 * its declaration's folder and under the folders of the files its command names (a game run from
 * a build folder elsewhere), hashed. Taken at a launch and again when the session goes back to a
 * moment of that run: equal prints mean nothing was changed, so a replay that parts from its
 * recording proves the run cannot be reproduced, rather than that the code changed. Bounded: a
 * project too large to walk has no print, and then nothing is claimed either way.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** Files walked at most; past it the project has no print. */
const MAX_FILES = 5000;
/** Folders that hold no code of the game's own, or change by themselves. */
const SKIPPED = new Set(['node_modules', '__pycache__', 'gamebridge-tests', 'session-traces']);

/** The folders a command's file arguments live in (`node ../dist/game/main.js`: dist/game). */
function commandFolders(command: string, cwd: string): string[] {
  const out: string[] = [];
  for (const raw of command.split(/\s+/)) {
    const token = raw.replace(/^["']|["']$/g, '');
    if (!token || token.startsWith('-') || !/[./\\]/.test(token)) continue;
    const path = isAbsolute(token) ? token : resolve(cwd, token);
    try {
      if (existsSync(path) && statSync(path).isFile() && !path.startsWith('/usr/')) out.push(dirname(path));
    } catch {
      /* not a file of ours */
    }
  }
  return out;
}

/** The print, or undefined when there are more files than it walks. */
export function codePrint(declaration: string, cwd: string, command: string): string | undefined {
  const roots = [...new Set([dirname(declaration), ...commandFolders(command, cwd)])];
  const hash = createHash('sha1');
  const seen = new Set<string>();
  let files = 0;
  const walk = (dir: string): boolean => {
    if (seen.has(dir)) return true;
    seen.add(dir);
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return true;
    }
    for (const name of names) {
      if (name.startsWith('.') || SKIPPED.has(name)) continue;
      const path = join(dir, name);
      let st;
      try {
        st = statSync(path);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (!walk(path)) return false;
      } else if (++files > MAX_FILES) return false;
      else hash.update(`${path}\0${st.size}\0${st.mtimeMs}\n`);
    }
    return true;
  };
  for (const root of roots) if (!walk(root)) return undefined;
  return hash.digest('hex');
}
