/**
 * The game's own pid. The declared command's game part is exec'd by its shell when that is
 * certain to mean the same (exec-prefix.ts), so the launch pid is the game; otherwise (`npm
 * start`, a pipe, a subshell) a wrapper is in between, so the game is looked up as the
 * process of the launch's tree that listens on the port (Linux: /proc/net/tcp{,6} socket
 * inode → /proc/<pid>/fd). Elsewhere, or when nothing of the tree
 * holds the port (a build tool whose daemon runs the game outside the tree), the launch pid
 * stands in.
 */
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { holdsSocket } from '../../shared/daemon-file.js';

/** The process of the tree under `rootPid` (or of its process group) that listens on `port`, if one can be told. */
export function findListener(port: number, rootPid: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  const inodes = listeningInodes(port);
  if (!inodes?.size) return undefined;
  const family = processFamily(rootPid);
  // Closest to the launch first: a worker that inherited the socket is not the game.
  for (const pid of [...family.keys()].sort((a, b) => family.get(a)! - family.get(b)!)) {
    if (holdsSocket(pid, inodes)) return pid;
  }
  return undefined;
}

/**
 * Inodes of sockets listening on any address's `port`, from /proc/net/tcp and tcp6; undefined
 * when neither table can be read (/proc not mounted, or not Linux).
 */
function listeningInodes(port: number): Set<string> | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  let read = false;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
      read = true;
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // f[1] local address:port, f[3] state (0A = LISTEN), f[9] inode
      if (f.length > 9 && f[3] === '0A' && f[1].endsWith(`:${hexPort}`)) inodes.add(f[9]);
    }
  }
  return read ? inodes : undefined;
}

/** Every live process descending from `rootPid` or in its process group, with its depth below it. */
function processFamily(rootPid: number): Map<number, number> {
  const parent = new Map<number, number>();
  const group = new Set<number>();
  for (const name of readdirSync('/proc')) {
    if (name.charCodeAt(0) > 57) continue; // not a pid
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (rest[0] === 'Z') continue;
      parent.set(Number(name), Number(rest[1]));
      if (Number(rest[2]) === rootPid) group.add(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  const family = new Map<number, number>();
  for (const pid of parent.keys()) {
    let depth = 0;
    for (let p: number | undefined = pid; p !== undefined && depth < 64; p = parent.get(p), depth++) {
      if (p === rootPid) {
        family.set(pid, depth);
        break;
      }
    }
    if (!family.has(pid) && group.has(pid)) family.set(pid, 64);
  }
  return family;
}

/**
 * Who listens on `port`: 'ours' when every listening socket on it belongs to the tree (or
 * process group) of `rootPid`, 'stranger' when one belongs to anyone else (another program, or
 * another user, bound it first), 'none' when nothing listens there; undefined where the OS
 * does not tell (not Linux, or /proc not mounted).
 */
export function listenerOwner(port: number, rootPid: number): 'ours' | 'stranger' | 'none' | undefined {
  if (process.platform !== 'linux') return undefined;
  const inodes = listeningInodes(port);
  if (!inodes) return undefined;
  if (!inodes.size) return 'none';
  const held = socketsOf([...processFamily(rootPid).keys()]);
  return [...inodes].every((i) => held.has(i)) ? 'ours' : 'stranger';
}

/** A process that holds a port, as far as this user may see it. */
export interface PortHolder {
  pid: number;
  uid?: number;
  /** the account name of `uid`, from /etc/passwd */
  user?: string;
  /** the program's name (/proc/<pid>/comm), printable and at most 15 characters */
  program?: string;
}

/**
 * The processes outside the tree of `rootPid` that hold a listening socket on `port`. Another
 * user's descriptors are readable only to root, so a process of theirs may be missing here
 * while listenerOwner still calls the port a stranger's.
 */
export function portHolders(port: number, rootPid: number): PortHolder[] {
  if (process.platform !== 'linux') return [];
  const inodes = listeningInodes(port);
  if (!inodes?.size) return [];
  const family = processFamily(rootPid);
  const out: PortHolder[] = [];
  for (const name of readdirSync('/proc')) {
    if (name.charCodeAt(0) > 57) continue; // not a pid
    const pid = Number(name);
    if (family.has(pid) || !holdsSocket(pid, inodes)) continue;
    const holder: PortHolder = { pid };
    try {
      holder.uid = statSync(`/proc/${pid}`).uid;
      holder.user = userName(holder.uid);
      holder.program = readFileSync(`/proc/${pid}/comm`, 'utf8')
        .trim()
        .replace(/[^\x20-\x7e]/g, '?')
        .slice(0, 15);
    } catch {
      /* gone meanwhile */
    }
    out.push(holder);
    if (out.length >= 4) break;
  }
  return out;
}

/** The account name of `uid` from /etc/passwd, if it is listed there. */
function userName(uid: number): string | undefined {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const f = line.split(':');
      if (f.length > 2 && f[2] === String(uid)) return f[0].replace(/[^\w.-]/g, '?').slice(0, 32);
    }
  } catch {
    /* no passwd file: the uid alone names the user */
  }
  return undefined;
}

/**
 * Is the loopback connection from `peerPort` to `ourPort` held by a process of the group
 * `pgid`? (The page carrier asks of each page joining: only the browser the bridge opened may
 * join.) Undefined where the OS does not tell (not Linux).
 */
export function connectionOfGroup(peerPort: number, ourPort: number, pgid: number): boolean | undefined {
  if (process.platform !== 'linux') return undefined;
  if (pgid <= 1) return false; // every process descends from these
  const peer = `:${hex(peerPort)}`;
  const ours = `:${hex(ourPort)}`;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const f of rows(table)) {
      // f[1] local, f[2] remote, f[3] state (01 = ESTABLISHED), f[9] inode
      if (f[3] === '01' && f[1].endsWith(peer) && f[2].endsWith(ours)) inodes.add(f[9]);
    }
  }
  if (!inodes.size) return false;
  const group = [...processFamily(pgid).keys()];
  return group.some((pid) => holdsSocket(pid, inodes));
}

/** Socket inodes among the descriptors of `pids` (those we may read). */
function socketsOf(pids: number[]): Set<string> {
  const out = new Set<string>();
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) out.add(m[1]);
      } catch {
        /* closed meanwhile */
      }
    }
  }
  return out;
}

const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');

/** The rows of a /proc/net table, split into fields (none when it cannot be read). */
function rows(table: string): string[][] {
  try {
    return readFileSync(table, 'utf8')
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(/\s+/))
      .filter((f) => f.length > 9);
  } catch {
    return [];
  }
}
