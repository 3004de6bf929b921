/**
 * daemon.json (docs/SETUP.md, "Files under GAME_BRIDGE_HOME") and process liveness: what the proxy, the CLI and the daemon all read
 * to find the daemon. Node builtins and zod's mini build only: the proxy imports this on its start path.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
// zod's mini build, as a namespace: the bundler keeps only the checks used here, so the proxy,
// which reads daemon.json on every start, stays light (docs/DECISIONS.md).
import * as z from 'zod/v4/mini';
import { readPrivateFile } from './private-files.js';

export interface DaemonInfo {
  pid: number;
  port: number;
  token: string;
  version: string;
  startedAt: string;
  /** the daemon's processStart(): with the pid, who it is (a pid alone may be recycled) */
  pidStart?: number;
  /** the standby that takes over if this daemon dies (daemon/life/standby.ts) */
  standby?: { pid: number; pidStart?: number; kind?: 'light' | 'warm' };
}

/** A pid Linux could give (it keeps them at or under 2^22). */
const pid = z.int().check(z.minimum(1), z.maximum(4_194_304));
const startTime = z.int().check(z.minimum(0));

const daemonInfoSchema = z.object({
  pid,
  port: z.int().check(z.minimum(1), z.maximum(65535)),
  token: z.string().check(z.minLength(1), z.maxLength(512)),
  version: z.string().check(z.maxLength(100)),
  startedAt: z.string().check(z.maxLength(100)),
  pidStart: z.optional(startTime),
  // A standby that does not read is no standby; the daemon's own facts still stand.
  standby: z.catch(
    z.optional(z.object({ pid, pidStart: z.optional(startTime), kind: z.optional(z.enum(['light', 'warm'])) })),
    undefined,
  ),
});

/**
 * The daemon.json at `file`, or undefined when missing, unreadable, not the right shape, or
 * not ours (another user's file, a link, writable by others: its token and port are not believed).
 */
export function readDaemonFile(file: string): DaemonInfo | undefined {
  try {
    return daemonInfoSchema.safeParse(JSON.parse(readPrivateFile(file) ?? '')).data;
  } catch {
    return undefined;
  }
}

/** Linux /proc/<pid>/stat → [state, process group], or undefined when unreadable. */
export function procStat(pid: number | string): [string, number] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return [rest[0], Number(rest[2])];
  } catch {
    return undefined;
  }
}

/** Is `pid` running? A zombie (killed, waiting for its parent to reap it) is not. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (process.platform !== 'linux') return true;
  const st = procStat(pid);
  return st === undefined ? true : st[0] !== 'Z';
}

/** Linux: the start time of `pid` (clock ticks since boot, /proc/<pid>/stat field 22), the part
 *  of a process's identity a recycled pid does not share. Undefined where it cannot be read. */
export function processStart(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const start = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/** `pid` runs and, when a start time was recorded, is the same process that recorded it. */
export function sameProcess(pid: number, start: number | undefined): boolean {
  if (!pidAlive(pid)) return false;
  if (start === undefined) return true;
  const now = processStart(pid);
  return now === undefined || now === start;
}

/** The home's daemon lock: a directory holding owner.json (daemon/life/lock.ts takes and keeps it). */
export const lockDirOf = (daemonDir: string) => join(daemonDir, 'daemon.lock');
export const lockOwnerFileOf = (lockDir: string) => join(lockDir, 'owner.json');

/** owner.json: who holds the lock; a start time that is not one is as good as none. */
const lockOwnerSchema = z.object({ pid, pidStart: z.catch(z.optional(startTime), undefined) });

/**
 * The live process holding the home's daemon lock (`daemon.lock/owner.json`, daemon/life/lock.ts): a
 * daemon that is starting (a standby taking over, another client's start) or serving.
 * Undefined when the lock is free, torn, or names a process that is gone.
 */
export function lockHolder(daemonDir: string): number | undefined {
  try {
    const o = lockOwnerSchema.safeParse(JSON.parse(readFileSync(lockOwnerFileOf(lockDirOf(daemonDir)), 'utf8'))).data;
    return o && sameProcess(o.pid, o.pidStart) ? o.pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Does `pid` hold the listening socket on 127.0.0.1:`port`? Linux tells through /proc/net/tcp
 * (the socket's inode) and /proc/<pid>/fd (its sockets); undefined where the OS does not tell.
 * A process whose descriptors we may not read belongs to another user: false.
 */
export function listenerOwnedBy(port: number, pid: number): boolean | undefined {
  if (process.platform !== 'linux') return undefined;
  let table: string;
  try {
    table = readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return undefined;
  }
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let inode: string | undefined;
  for (const line of table.split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols[1] === local && cols[3] === '0A') inode = cols[9]; // 0A: LISTEN
  }
  if (!inode) return false; // nothing listens there (on IPv4 loopback)
  return holdsSocket(pid, new Set([inode]));
}

/**
 * Whether `pid` holds one of the sockets `inodes` (from /proc/net/tcp) among its descriptors.
 * A process whose descriptors we may not read (another user's): false.
 */
export function holdsSocket(pid: number, inodes: Set<string>): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m && inodes.has(m[1])) return true;
    } catch {
      /* closed meanwhile */
    }
  }
  return false;
}
