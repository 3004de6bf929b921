/**
 * Skill files edited by hand: every skills folder the daemon has read is looked at every POLL_MS
 * (its file names, sizes and change times), and a file changed, added or removed is announced as
 * define_skill announces one, so clients list the prompts (and --eager tools) again. Polled, not
 * fs.watch'ed: the folder may not exist yet, editors save by renaming a new file over the old, and
 * a folder removed and made again loses its inotify watch; a stat of a few files now and then costs
 * nothing (docs/DECISIONS.md, "Skill files edited by hand").
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const POLL_MS = 1000;
/** Folders looked at: one per project the daemon served skills for, so a handful. */
const MAX_FOLDERS = 64;
/** Files of a folder looked at (loadSkills reads no more). */
export const MAX_SKILLS = 200;

const folders = new Map<string, string>();
const listeners = new Set<() => void>();
let timer: NodeJS.Timeout | undefined;

/** The skill files of a folder as names, sizes and change times: '' when it does not exist. */
function signature(dir: string): string {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  } catch {
    return '';
  }
  return names
    .sort()
    .slice(0, MAX_SKILLS)
    .map((n) => {
      try {
        const st = statSync(join(dir, n));
        return `${n}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
      } catch {
        return n; // gone meanwhile: the next look says so
      }
    })
    .join('/');
}

function look(): void {
  let changed = false;
  for (const [dir, was] of folders) {
    const now = signature(dir);
    if (now !== was) {
      folders.set(dir, now);
      changed = true;
    }
  }
  if (changed) for (const l of listeners) l();
}

/** Look at a skills folder from now on (it need not exist yet). */
export function watchSkills(dir: string): void {
  if (folders.has(dir)) return;
  if (folders.size >= MAX_FOLDERS) folders.delete(folders.keys().next().value!);
  folders.set(dir, signature(dir));
  timer ??= setInterval(look, POLL_MS).unref();
}

/** A skill of `dir` was kept or removed through the bridge: tell the listeners now, and not again on the next look. */
export function skillsChanged(dir: string): void {
  if (folders.has(dir)) folders.set(dir, signature(dir));
  for (const l of listeners) l();
}

/**
 * Who hears that a skill was kept, removed or edited: the sessions, which tell their clients
 * (prompts and --eager tools list_changed). Daemon-wide, as the files are.
 */
export function onSkillsChanged(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
