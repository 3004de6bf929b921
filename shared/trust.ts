/**
 * May this file or directory be believed? On a machine shared with other users and agents,
 * a file someone else can write is someone else's code or data. Node builtins only (the proxy
 * loads this on its start path).
 *
 * Trusted: owned by this process's user or by root, and not writable by others. Writable by
 * the group only when the group is the owner's private group (the Debian/Ubuntu default: a
 * group named like the user), since then nobody else is in it.
 */
import { readFileSync, statSync, type Stats } from 'node:fs';

const myUid = () => (typeof process.getuid === 'function' ? process.getuid() : -1);

let names: { users: Map<number, string>; groups: Map<number, { name: string; members: string[] }> } | undefined;

/** uid → user name and gid → group, from /etc/passwd and /etc/group (read once). */
function accountNames() {
  if (names) return names;
  names = { users: new Map(), groups: new Map() };
  const rows = (file: string) => {
    try {
      return readFileSync(file, 'utf8')
        .split('\n')
        .map((l) => l.split(':'));
    } catch {
      return [];
    }
  };
  for (const r of rows('/etc/passwd')) if (r.length > 3) names.users.set(Number(r[2]), r[0]);
  for (const r of rows('/etc/group'))
    if (r.length > 3) names.groups.set(Number(r[2]), { name: r[0], members: r[3] ? r[3].split(',') : [] });
  return names;
}

/** A group only its owner is in: named like the owner, no other listed members. */
function privateGroup(uid: number, gid: number): boolean {
  const { users, groups } = accountNames();
  const user = users.get(uid);
  const group = groups.get(gid);
  return !!user && !!group && group.name === user && group.members.every((m) => m === user);
}

/** Why `path` may not be believed, or undefined when it may. `st` if already at hand (stat: a
 *  link is judged by what it points at). */
export function distrust(path: string, st?: Stats): string | undefined {
  if (process.platform === 'win32') return undefined;
  try {
    st ??= statSync(path);
  } catch (e) {
    return `it cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  const uid = myUid();
  if (st.uid !== uid && st.uid !== 0) return `it is owned by uid ${st.uid}, not by you (uid ${uid})`;
  if (st.mode & 0o002) return `it is writable by every user (mode ${(st.mode & 0o7777).toString(8)})`;
  if (st.mode & 0o020 && !privateGroup(st.uid, st.gid))
    return `it is writable by its group (gid ${st.gid}, mode ${(st.mode & 0o7777).toString(8)})`;
  return undefined;
}

/** The fix to suggest for a path that is not trusted. */
export function trustFix(path: string): string {
  return `If it is yours, run \`chown ${myUid()} '${path}' && chmod go-w '${path}'\`; otherwise move the project somewhere only you can write.`;
}
