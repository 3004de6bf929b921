/**
 * daemon.json (README.md, "Files under GAME_BRIDGE_HOME") and process liveness: what the proxy, the CLI and the daemon all read
 * to find the daemon. Node builtins only: the proxy imports this on its start path.
 */
import { readFileSync } from 'node:fs';

export interface DaemonInfo {
  pid: number;
  port: number;
  token: string;
  version: string;
  startedAt: string;
}

/** The daemon.json at `file`, or undefined when missing, unreadable or not the right shape. */
export function readDaemonFile(file: string): DaemonInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as DaemonInfo;
    return info && typeof info.pid === 'number' && typeof info.port === 'number' && typeof info.token === 'string' ? info : undefined;
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
